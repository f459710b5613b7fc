#!/usr/bin/env bash
# llama.cpp-made i-quant files of the default models, and llama.cpp's perplexity on each: the
# reference Pocket's own perplexity on the same files is compared with (issue 37). Not run by CI
# (it needs llama.cpp's tools; each file is a few hundred MB).
#
# Run from the package root after /work/shared/tools/llama-reference (llama-quantize,
# llama-imatrix and llama-perplexity in $POCKET_REFERENCE/bin), with `pocket` built:
#
#     Tests/PocketTransformerTests/Scripts/make_iq_files.sh [MODEL.gguf [TYPE ...]]
#
# For MODEL (default: Qwen) it computes an importance matrix with llama-imatrix over
# ../shared/golden/perplexity_text.txt (the i-quants below 3 bits require one), requantizes the
# file to each TYPE (default: every i-quant and ternary type) into Weights/iq/, and prints one
# line per file: the type, llama-perplexity's PPL, Pocket's, and their ratio. The source files are
# already quantized, hence --allow-requantize: the copies are worse than quantizing from f16 would
# make them, but both engines read the same bytes.
set -euo pipefail
cd "$(dirname "$0")/../../.."
REF=${POCKET_REFERENCE:-$HOME/.cache/pocket-reference}
TEXT=../shared/golden/perplexity_text.txt
THREADS=${THREADS:-2}
model=${1:-Weights/Qwen2.5-Coder-0.5B-Instruct.gguf}
shift || true
types=("$@")
[ ${#types[@]} -gt 0 ] || types=(IQ2_XXS IQ2_XS IQ2_S IQ2_M IQ3_XXS IQ3_S IQ4_NL IQ4_XS IQ1_S IQ1_M TQ1_0 TQ2_0)
for tool in llama-quantize llama-imatrix llama-perplexity; do
  [ -x "$REF/bin/$tool" ] || { echo "no $REF/bin/$tool: run llama-reference first" >&2; exit 1; }
done
pocket=.build/release/pocket
[ -x "$pocket" ] || { echo "no $pocket: run swift build -c release first" >&2; exit 1; }

mkdir -p Weights/iq
name=$(basename "$model" .gguf)
imatrix=Weights/iq/$name.imatrix.gguf
if [ ! -f "$imatrix" ]; then
  "$REF/bin/llama-imatrix" -m "$model" -f "$TEXT" -o "$imatrix" -c 512 -t "$THREADS" >/dev/null 2>&1
fi

echo "type       llama.cpp   pocket      pocket/llama   bytes"
for type in "${types[@]}"; do
  out=Weights/iq/$name.$type.gguf
  if [ ! -f "$out" ]; then
    "$REF/bin/llama-quantize" --allow-requantize --imatrix "$imatrix" "$model" "$out" "$type" "$THREADS" >/dev/null 2>&1 \
      || { echo "$type: llama-quantize failed" >&2; continue; }
  fi
  llama=$("$REF/bin/llama-perplexity" -m "$out" -f "$TEXT" -c 512 -t "$THREADS" 2>&1 \
    | sed -n 's/.*Final estimate: PPL = \([0-9.]*\).*/\1/p')
  ours=$("$pocket" perplexity --model "$out" -f "$TEXT" -c 512 --threads "$THREADS" 2>/dev/null \
    | sed -n 's/^PPL = \([0-9.]*\).*/\1/p')
  ratio=$(python3 -c "print(f'{float(\"${ours:-nan}\") / float(\"${llama:-nan}\"):.5f}')")
  printf '%-10s %-11s %-11s %-14s %s\n' "$type" "${llama:-?}" "${ours:-?}" "$ratio" "$(stat -c %s "$out")"
done
