#!/usr/bin/env python3
"""Writes the dequantization fixtures for PocketKernelsTests (DequantizeTests.swift).

For every block format Pocket decodes, this generates raw blocks from a fixed seed, decodes them
with `gguf.quants.dequantize` from the `gguf` PyPI package (the independent reference), and
writes

    dequant/<name>.blocks.bin     the raw block bytes, as a GGUF file stores them
    dequant/<name>.expected.bin   the reference output, little-endian float32
    dequant/index.json            per format: type number, block count, weight count, file names

Quantized blocks are random bytes, except that their fp16 scale fields are overwritten with
finite values (random sign, magnitude log-uniform in [2^-16, 4], so fp16 subnormal scales occur
too): NaN or infinite scales say nothing about the layout. F16 covers all 65536 bit patterns
(subnormals, infinities, quiet and signalling NaNs); BF16 and F32 use random bit patterns plus
the special values.

Run from anywhere:  python3 Tests/PocketKernelsTests/Fixtures/make_dequant_fixtures.py
"""
import json
import pathlib

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T
from gguf.quants import dequantize

SEED = 20261123
BLOCKS = 64  # per quantized format
OUT = pathlib.Path(__file__).resolve().parent / "dequant"

# Byte offsets of the fp16 scale fields inside one block (from ggml's block structs).
HALF_FIELDS = {
    T.Q4_0: [0],
    T.Q4_1: [0, 2],
    T.Q5_0: [0],
    T.Q5_1: [0, 2],
    T.Q8_0: [0],
    T.Q2_K: [80, 82],
    T.Q3_K: [108],
    T.Q4_K: [0, 2],
    T.Q5_K: [0, 2],
    T.Q6_K: [208],
    T.IQ4_NL: [0],
    T.IQ4_XS: [0],
    T.IQ2_XXS: [0],
    T.IQ2_XS: [0],
    T.IQ2_S: [0],
    T.IQ3_XXS: [0],
    T.IQ3_S: [0],
    T.IQ1_S: [0],
    T.TQ1_0: [52],
    T.TQ2_0: [64],
}


def finite_halves(rng, count):
    magnitude = np.exp2(rng.uniform(-16.0, 2.0, size=count))
    sign = rng.choice([-1.0, 1.0], size=count)
    return (sign * magnitude).astype(np.float16)


def quantized_blocks(rng, qtype):
    _, type_size = gguf.GGML_QUANT_SIZES[qtype]
    blocks = rng.integers(0, 256, size=(BLOCKS, type_size), dtype=np.uint8)
    for offset in HALF_FIELDS[qtype]:
        blocks[:, offset:offset + 2] = finite_halves(rng, BLOCKS).view(np.uint8).reshape(BLOCKS, 2)
    return blocks.reshape(-1)


def iq1_m_blocks(rng):
    """IQ1_M has no fp16 field: its scale's 16 bits are the top nibbles of the four little-endian
    16-bit words of `scales` (bytes 48..<56), lowest nibble in the first word."""
    _, type_size = gguf.GGML_QUANT_SIZES[T.IQ1_M]
    blocks = rng.integers(0, 256, size=(BLOCKS, type_size), dtype=np.uint8)
    scale_bits = finite_halves(rng, BLOCKS).view(np.uint16).astype(np.uint16)
    words = blocks[:, 48:56].copy().view("<u2")
    for i in range(4):
        nibble = (scale_bits >> np.uint16(4 * i)) & np.uint16(0xF)
        words[:, i] = (words[:, i] & np.uint16(0x0FFF)) | (nibble << np.uint16(12))
    blocks[:, 48:56] = words.view(np.uint8)
    return blocks.reshape(-1)


def f16_values(rng):
    return np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.uint8)


def bf16_values(rng):
    special = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x7F7F, 0xFF7F,
                        0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81, 0x7FFF, 0x3F80, 0xBF80],
                       dtype=np.uint16)
    bits = np.concatenate([special, rng.integers(0, 65536, size=4096 - len(special), dtype=np.uint16)])
    return bits.view(np.uint8)


def f32_values(rng):
    special = np.array([0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x7F7FFFFF, 0x7F800000,
                        0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0x3F800000, 0xBF800000],
                       dtype=np.uint32)
    bits = np.concatenate([special, rng.integers(0, 2**32, size=2048 - len(special), dtype=np.uint32)])
    return bits.view(np.uint8)


FORMATS = [
    (T.F32, f32_values), (T.F16, f16_values),
    (T.Q4_0, None), (T.Q4_1, None), (T.Q5_0, None), (T.Q5_1, None), (T.Q8_0, None),
    (T.Q2_K, None), (T.Q3_K, None), (T.Q4_K, None), (T.Q5_K, None), (T.Q6_K, None),
    (T.BF16, bf16_values),
    # Appended after the first formats so that their fixtures (one random stream) stay the same.
    (T.IQ4_NL, None), (T.IQ4_XS, None),
    (T.IQ2_XXS, None), (T.IQ2_XS, None), (T.IQ2_S, None), (T.IQ3_XXS, None), (T.IQ3_S, None),
    (T.IQ1_S, None), (T.IQ1_M, iq1_m_blocks), (T.TQ1_0, None), (T.TQ2_0, None),
]


def main():
    rng = np.random.default_rng(SEED)
    OUT.mkdir(exist_ok=True)
    entries = []
    for qtype, make in FORMATS:
        raw = make(rng) if make else quantized_blocks(rng, qtype)
        block_size, type_size = gguf.GGML_QUANT_SIZES[qtype]
        assert raw.dtype == np.uint8 and raw.size % type_size == 0
        blocks = raw.size // type_size
        expected = np.ascontiguousarray(dequantize(raw, qtype), dtype=np.float32).reshape(-1)
        assert expected.size == blocks * block_size
        name = qtype.name.lower().replace("_k", "_K")
        (OUT / f"{name}.blocks.bin").write_bytes(raw.tobytes())
        (OUT / f"{name}.expected.bin").write_bytes(expected.astype("<f4").tobytes())
        entries.append({
            "name": name, "type": int(qtype), "blocks": blocks, "weights": int(expected.size),
            "blocksFile": f"{name}.blocks.bin", "expectedFile": f"{name}.expected.bin",
        })
    index = {
        "generator": "make_dequant_fixtures.py",
        "reference": f"gguf {gguf_version()} gguf.quants.dequantize, numpy {np.__version__}",
        "seed": SEED,
        "formats": entries,
    }
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")


def gguf_version():
    from importlib.metadata import version
    return version("gguf")


if __name__ == "__main__":
    main()
