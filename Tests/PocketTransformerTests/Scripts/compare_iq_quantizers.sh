#!/usr/bin/env bash
# Issue 37's two quantizer comparisons on whole files, judged by llama-perplexity (so every file
# must load in llama.cpp). Not run by CI: it takes about an hour on two cores.
#
#   - the encoder: `pocket quantize --pure --type iq2_xxs` against `llama-quantize --pure … IQ2_XXS`
#     (every matrix in the type, the same fallbacks, so files of the same size);
#   - the recipe: `pocket quantize --type iq2_s` (Pocket's IQ2_M mix) against llama-quantize's IQ2_M.
#
# Both engines calibrate on the same text, ../shared/golden/perplexity_text.txt: Pocket with its
# own importance matrix (`--calibration`), llama-quantize with llama-imatrix's. Run from the
# package root after /work/shared/tools/llama-reference, with `pocket` built in release:
#
#     Tests/PocketTransformerTests/Scripts/compare_iq_quantizers.sh [MODEL.gguf]
#
# Files go to the git-ignored Weights/iq/; one line per file: its name, bytes and perplexity.
set -euo pipefail
cd "$(dirname "$0")/../../.."
REF=${POCKET_REFERENCE:-$HOME/.cache/pocket-reference}
TEXT=../shared/golden/perplexity_text.txt
THREADS=${THREADS:-2}
POCKET=${POCKET:-.build/release/pocket}
model=${1:-Weights/Qwen2.5-Coder-0.5B-Instruct.gguf}
for tool in llama-quantize llama-imatrix llama-perplexity; do
  [ -x "$REF/bin/$tool" ] || { echo "no $REF/bin/$tool: run llama-reference first" >&2; exit 1; }
done
[ -x "$POCKET" ] || { echo "no $POCKET: run swift build -c release first" >&2; exit 1; }

mkdir -p Weights/iq
name=$(basename "$model" .gguf)
imatrix=Weights/iq/$name.imatrix.gguf
[ -f "$imatrix" ] || "$REF/bin/llama-imatrix" -m "$model" -f "$TEXT" -o "$imatrix" -c 512 -t "$THREADS" >/dev/null 2>&1

llama() {   # llama-quantize's file of TYPE, with --pure if asked
  local out=$1 type=$2; shift 2
  [ -f "$out" ] || "$REF/bin/llama-quantize" --allow-requantize "$@" --imatrix "$imatrix" "$model" "$out" "$type" "$THREADS" \
    > "$out.log" 2>&1
}
pocket() {  # Pocket's file of --type TYPE, with --pure if asked
  local out=$1 type=$2; shift 2
  [ -f "$out" ] || "$POCKET" quantize "$model" "$out" --type "$type" "$@" --calibration "$TEXT" --threads "$THREADS" \
    > "$out.log" 2>&1
}
perplexity() {
  "$REF/bin/llama-perplexity" -m "$1" -f "$TEXT" -c 512 -t "$THREADS" 2>&1 \
    | sed -n 's/.*Final estimate: PPL = \([0-9.]*\) +\/- \([0-9.]*\).*/\1 ± \2/p'
}

llama  "Weights/iq/$name.pure-IQ2_XXS.gguf" IQ2_XXS --pure
pocket "Weights/iq/$name.pocket-pure-iq2_xxs.gguf" iq2_xxs --pure
llama  "Weights/iq/$name.IQ2_M.gguf" IQ2_M
pocket "Weights/iq/$name.pocket-iq2_s.gguf" iq2_s

printf '%-52s %12s  %s\n' file bytes perplexity
for f in pure-IQ2_XXS pocket-pure-iq2_xxs IQ2_M pocket-iq2_s; do
  path=Weights/iq/$name.$f.gguf
  printf '%-52s %12s  %s\n' "$(basename "$path")" "$(stat -c %s "$path")" "$(perplexity "$path")"
done
