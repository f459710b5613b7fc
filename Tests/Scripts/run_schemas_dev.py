#!/usr/bin/env python3
"""Runs the JSON Schema development set through `pocket schema check`.

Usage: run_schemas_dev.py [--pocket PATH] [--dir DIR] [--model PATH] [--verbose]

For each `{"source", "schema", "cases"}` file in DIR (default ../shared/golden/schemas-dev
relative to the package root) it writes the schema to a temporary file, feeds the cases' JSON
lines to `pocket schema check` and compares each outcome with the case's `valid` flag. Prints
the compile rate, valid instances accepted, invalid instances rejected, the failures, and a
table of refusal reasons by keyword (from the error message `pocket` prints).
"""
import argparse, collections, json, os, re, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
parser = argparse.ArgumentParser()
parser.add_argument("--pocket", default=os.path.join(root, ".build/release/pocket"))
parser.add_argument("--dir", default=os.path.join(root, "../shared/golden/schemas-dev"))
parser.add_argument("--model", default=None)
parser.add_argument("--verbose", action="store_true")
args = parser.parse_args()

files = sorted(f for f in os.listdir(args.dir) if f.endswith(".json"))
compiled = 0
valid_total = valid_accepted = invalid_total = invalid_rejected = 0
reasons = collections.Counter()
failures = []
with tempfile.TemporaryDirectory() as tmp:
    for name in files:
        with open(os.path.join(args.dir, name)) as f:
            entry = json.load(f)
        schema_path = os.path.join(tmp, "schema.json")
        with open(schema_path, "w") as f:
            json.dump(entry["schema"], f)
        cases = entry["cases"]
        command = [args.pocket, "schema", "check", "--schema", schema_path]
        if args.model:
            command += ["--model", args.model]
        documents = "".join(c["json"].replace("\n", "\\n") + "\n" for c in cases)
        try:
            run = subprocess.run(command, input=documents, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            reasons["(timeout)"] += 1
            failures.append(f"{name}: timed out")
            continue
        if run.returncode != 0:
            message = run.stderr.strip().splitlines()[-1] if run.stderr.strip() else f"exit {run.returncode}"
            if run.returncode < 0 or "Fatal error" in run.stderr:
                key = "(crash)"
            else:
                m = re.search(r"unsupported JSON Schema keyword '([^']*)'", message)
                key = m.group(1) if m else re.sub(r".*invalid schema at [^:]*: ", "invalid: ", message)[:70]
            reasons[key] += 1
            if args.verbose:
                print(f"refused {name}: {message}")
            continue
        compiled += 1
        outcomes = run.stdout.strip().splitlines()
        for case, outcome in zip(cases, outcomes):
            accepted = outcome == "accept"
            if case["valid"]:
                valid_total += 1
                valid_accepted += accepted
                if not accepted:
                    failures.append(f"{name}: valid instance {outcome}: {case['json'][:160]}")
            else:
                invalid_total += 1
                invalid_rejected += not accepted
                if accepted:
                    failures.append(f"{name}: invalid instance accepted: {case['json'][:160]}")

print(f"schemas compiled: {compiled}/{len(files)} ({100 * compiled / max(1, len(files)):.1f}%)")
print(f"valid instances accepted (compiled schemas): {valid_accepted}/{valid_total}")
print(f"invalid instances rejected (compiled schemas): {invalid_rejected}/{invalid_total}")
if failures:
    print("\nfailures:")
    for f in failures:
        print("  " + f)
print("\nrefusal reasons:")
print("| keyword / reason | schemas |")
print("|---|---|")
for key, count in reasons.most_common():
    print(f"| {key} | {count} |")
