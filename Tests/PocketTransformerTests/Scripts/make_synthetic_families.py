#!/usr/bin/env python3
"""Small random-weight GGUF files in the real layout of two families, for SyntheticFamilyGoldenTests.

Run from the package root (needs `python3 -m pip install gguf==0.19.0 numpy` and the default model,
`Weights/fetch`):

    python3 Tests/PocketTransformerTests/Scripts/make_synthetic_families.py [OUTPUT_DIR]

Writes into OUTPUT_DIR (default Weights/synthetic, git-ignored), in about 30 seconds:

- synthetic-qwen3.gguf: `general.architecture = "qwen3"`, per-head Q/K norms, no biases, a head
  dimension (`qwen3.attention.key_length` 32) that is not dim / heads (16), tied output.
- synthetic-llama31.gguf: `general.architecture = "llama"` in Llama 3.1's layout: a separate
  output projection, `rope_freqs.weight` from Llama 3.1's formula (as llama.cpp's
  convert_hf_to_gguf.py computes it) with an original context of 64 positions so that the
  factors bind within a short prompt, `tokenizer.ggml.pre = "llama-bpe"`, BOS added.
- synthetic-qwen3-q8_0.gguf, synthetic-llama31-q8_0.gguf: the same, block matrices in Q8_0.

Both take the byte-level BPE vocabulary, merges and token types of
Weights/Qwen2.5-Coder-0.5B-Instruct.gguf (read with gguf.GGUFReader). Qwen's vocabulary has no
token of two digits, so its split (one digit per piece) and Llama 3's (runs of up to three)
would tokenize alike: the Llama file appends the tokens "12" and "123" and their two merges,
which only Llama 3's split can reach ("12345" is "123" + "4" + "5" there).

Every matrix a product reads is F32, and the Llama file's token embedding (only looked up, its
output projection being separate) is Q8_0 (gguf.quants.quantize): dequantizing a row is exact on
both sides, while a product with Q8_0 weights rounds its input to 8 bits, where a difference of
one unit in the last place upstream (a float sum taken in another order) can move a value to
the next step and a logit by a few hundredths, enough to turn a near-tie among 151,936 random
logits (whose top two are often that close) the other way. With F32 products Pocket and
llama.cpp agree token for token. Each family is also written with the same weights and its
block matrices in Q8_0 (synthetic-qwen3-q8_0.gguf, synthetic-llama31-q8_0.gguf): those the test
checks against llama.cpp's tokens up to such near-ties.

The weights come from a fixed seed, so the files are the same on every run with the same gguf
and numpy versions: synthetic_families.json, which reference_synthetic_families.sh wrote from
llama.cpp's outputs for them, holds each file's size and checksum, and the test refuses a file
that differs.
"""
import math
import os
import sys

import gguf
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
VOCABULARY_SOURCE = os.path.join(ROOT, "Weights", "Qwen2.5-Coder-0.5B-Instruct.gguf")

Q8_0 = gguf.GGMLQuantizationType.Q8_0


def vocabulary():
    """Tokens, token types and merges of the Qwen2.5 file, and its special token ids."""
    reader = gguf.GGUFReader(VOCABULARY_SOURCE)
    fields = reader.fields
    tokens = fields["tokenizer.ggml.tokens"].contents()
    types = fields["tokenizer.ggml.token_type"].contents()
    merges = fields["tokenizer.ggml.merges"].contents()
    special = {key: fields[f"tokenizer.ggml.{key}"].contents() for key in ("bos_token_id", "eos_token_id", "padding_token_id")}
    return tokens, types, merges, special


class Weights:
    """Uniform random values from one seeded stream, in the order the tensors are written."""

    def __init__(self, seed):
        self.random = np.random.Generator(np.random.PCG64(seed))

    def uniform(self, shape, scale):
        return ((self.random.random(shape) * 2 - 1) * scale).astype(np.float32)

    def norm(self, count, low=0.8, high=1.2):
        return (low + self.random.random(count) * (high - low)).astype(np.float32)


def add_matrix(writer, name, values, quantized=False):
    """A `rows × columns` matrix (ne0 = columns), F32 or Q8_0."""
    if quantized:
        writer.add_tensor(name, gguf.quants.quantize(values, Q8_0), raw_dtype=Q8_0)
    else:
        writer.add_tensor(name, values)


def llama31_rope_factors(base, head_dimension, factor, low_frequency_factor, high_frequency_factor, original_context):
    """convert_hf_to_gguf.py's `rope_freqs` for `rope_type = "llama3"`: one divisor per pair."""
    factors = []
    for i in range(0, head_dimension, 2):
        frequency = 1.0 / (base ** (i / head_dimension))
        wavelength = 2 * math.pi / frequency
        if wavelength < original_context / high_frequency_factor:
            factors.append(1.0)
        elif wavelength > original_context / low_frequency_factor:
            factors.append(factor)
        else:
            smooth = (original_context / wavelength - low_frequency_factor) / (high_frequency_factor - low_frequency_factor)
            factors.append(1 / ((1 - smooth) / factor + smooth))
    return np.array(factors, dtype=np.float32)


def with_digit_merges(tokenizer):
    """The vocabulary with "12" and "123" appended (normal tokens) and the merges that make them."""
    tokens, types, merges, special = tokenizer
    return tokens + ["12", "123"], types + [1, 1], merges + ["1 2", "12 3"], special


def write(path, arch, shape, seed, tokenizer, pre, add_bos, rope_base, separate_output, rope_factors=None, quantized_blocks=False):
    tokens, types, merges, special = tokenizer
    dim, heads, kv_heads, head_dim, ffn, layers = (shape[k] for k in ("dim", "heads", "kv_heads", "head_dim", "ffn", "layers"))
    vocab = len(tokens)
    w = Weights(seed)
    writer = gguf.GGUFWriter(path, arch)
    writer.add_name(f"synthetic {arch} (random weights)")
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_Q8_0 if quantized_blocks else gguf.LlamaFileType.ALL_F32)
    writer.add_block_count(layers)
    writer.add_context_length(4096)
    writer.add_embedding_length(dim)
    writer.add_feed_forward_length(ffn)
    writer.add_head_count(heads)
    writer.add_head_count_kv(kv_heads)
    writer.add_key_length(head_dim)
    writer.add_value_length(head_dim)
    writer.add_rope_dimension_count(head_dim)
    writer.add_rope_freq_base(rope_base)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_vocab_size(vocab)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_bos_token_id(special["bos_token_id"])
    writer.add_eos_token_id(special["eos_token_id"])
    writer.add_pad_token_id(special["padding_token_id"])
    writer.add_add_bos_token(add_bos)

    q, kv = heads * head_dim, kv_heads * head_dim
    # Scales: unit embedding rows; each block's outputs a few times larger than the rows, so a
    # tied output does not just echo the last token; queries and keys large enough for sharp
    # attention, so positions (and RoPE's factors) decide what a token attends to.
    add_matrix(writer, "token_embd.weight", w.uniform((vocab, dim), 1.7), quantized=separate_output)
    for l in range(layers):
        p = f"blk.{l}."
        writer.add_tensor(p + "attn_norm.weight", w.norm(dim))
        add_matrix(writer, p + "attn_q.weight", w.uniform((q, dim), 3.5 / math.sqrt(dim)), quantized_blocks)
        add_matrix(writer, p + "attn_k.weight", w.uniform((kv, dim), 3.5 / math.sqrt(dim)), quantized_blocks)
        add_matrix(writer, p + "attn_v.weight", w.uniform((kv, dim), 1.7 / math.sqrt(dim)), quantized_blocks)
        if arch == "qwen3":
            writer.add_tensor(p + "attn_q_norm.weight", w.norm(head_dim, 1.5, 2.5))
            writer.add_tensor(p + "attn_k_norm.weight", w.norm(head_dim, 1.5, 2.5))
        add_matrix(writer, p + "attn_output.weight", w.uniform((dim, q), 5 / math.sqrt(q)), quantized_blocks)
        writer.add_tensor(p + "ffn_norm.weight", w.norm(dim))
        add_matrix(writer, p + "ffn_gate.weight", w.uniform((ffn, dim), 1.7 / math.sqrt(dim)), quantized_blocks)
        add_matrix(writer, p + "ffn_up.weight", w.uniform((ffn, dim), 1.7 / math.sqrt(dim)), quantized_blocks)
        add_matrix(writer, p + "ffn_down.weight", w.uniform((dim, ffn), 7 / math.sqrt(ffn)), quantized_blocks)
    writer.add_tensor("output_norm.weight", w.norm(dim))
    if separate_output:
        add_matrix(writer, "output.weight", w.uniform((vocab, dim), 1.7 / math.sqrt(dim) * 4), quantized=False)
    if rope_factors is not None:
        writer.add_tensor("rope_freqs.weight", rope_factors)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    print(f"wrote {path} ({os.path.getsize(path):,} bytes)")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Weights", "synthetic")
    os.makedirs(out, exist_ok=True)
    tokenizer = vocabulary()
    # Qwen3: no BOS (Qwen's files set add_bos_token false), RoPE base 10⁶ as the released models.
    # Each family twice: every block matrix F32, then the same weights with the block matrices
    # in Q8_0 ("-q8_0", checked against llama.cpp up to near-ties).
    for suffix, quantized in [("", False), ("-q8_0", True)]:
        write(os.path.join(out, f"synthetic-qwen3{suffix}.gguf"), "qwen3",
              dict(dim=64, heads=4, kv_heads=2, head_dim=32, ffn=128, layers=2), seed=3,
              tokenizer=tokenizer, pre="qwen2", add_bos=False, rope_base=1_000_000.0, separate_output=False,
              quantized_blocks=quantized)
    # Llama 3.1: base 500,000 and factor 8, low 1, high 4 as in its config.json; the original
    # context of 64 (8192 in the real model) gives 13 of the 16 pairs a factor of 8 and one a factor
    # between 1 and 8.
    head_dim, base = 32, 500_000.0
    factors = llama31_rope_factors(base, head_dim, factor=8.0, low_frequency_factor=1.0, high_frequency_factor=4.0,
                                   original_context=64)
    for suffix, quantized in [("", False), ("-q8_0", True)]:
        write(os.path.join(out, f"synthetic-llama31{suffix}.gguf"), "llama",
              dict(dim=64, heads=2, kv_heads=1, head_dim=head_dim, ffn=192, layers=2), seed=31,
              tokenizer=with_digit_merges(tokenizer), pre="llama-bpe", add_bos=True, rope_base=base, separate_output=True,
              rope_factors=factors, quantized_blocks=quantized)


if __name__ == "__main__":
    main()
