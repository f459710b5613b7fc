#!/usr/bin/env python3
"""Writes the quantization fixtures for PocketKernelsTests (ReferenceQuantizerTests.swift).

For every format whose encoder exists in the `gguf` PyPI package (Q4_0, Q4_1, Q5_0, Q8_0), this
generates float32 weights from a fixed seed, encodes them with `gguf.quants.quantize` (the
independent reference), and writes

    quant/<name>.input.bin      the weights, little-endian float32
    quant/<name>.expected.bin   the reference blocks, as a GGUF file stores them
    quant/index.json            per format: type number, block count, file names

The weights are random normal blocks with log-uniform magnitudes (2^-20 ... 2^12), followed by
special blocks: all zeros, constants of either sign, two extremes of equal magnitude and
opposite sign (the first one wins), values on exact rounding ties of the block's grid, a block
whose fp16 scale is subnormal, and uniform data.

Run from anywhere:  python3 Tests/PocketKernelsTests/Fixtures/make_quant_fixtures.py
"""
import json
import pathlib

import numpy as np
import gguf
from gguf import GGMLQuantizationType as T
from gguf.quants import quantize

SEED = 20261124
RANDOM_BLOCKS = 96
OUT = pathlib.Path(__file__).resolve().parent / "quant"


def special_blocks(rng):
    blocks = [
        np.zeros(32),
        np.full(32, 0.75),
        np.full(32, -3.0),
        np.concatenate([[2.0, -2.0], rng.uniform(-1, 1, 30)]),
        np.concatenate([[-2.0, 2.0], rng.uniform(-1, 1, 30)]),
        # Ties: multiples of 0.5 on grids with steps 1/8 (Q4_0, |max| = 1), 1/15, 1/127.
        np.concatenate([[-1.0], (np.arange(31) - 15) / 16.0]),
        np.concatenate([[1.0, 0.0], (np.arange(30) - 15) / 30.0]),
        np.concatenate([[127.0], np.arange(-62, 62, 4) + 0.5])[:32],
        np.linspace(-1e-6, 1e-6, 32),      # fp16 scale underflows to a subnormal
        np.linspace(0, 1, 32),
        rng.uniform(-5, 5, 32),
    ]
    return np.stack([b.astype(np.float32) for b in blocks])


def weights(rng):
    magnitude = np.exp2(rng.uniform(-20, 12, size=(RANDOM_BLOCKS, 1)))
    random = (rng.standard_normal((RANDOM_BLOCKS, 32)) * magnitude).astype(np.float32)
    return np.concatenate([random, special_blocks(rng)]).astype(np.float32)


def main():
    rng = np.random.default_rng(SEED)
    OUT.mkdir(exist_ok=True)
    entries = []
    for qtype in [T.Q4_0, T.Q4_1, T.Q5_0, T.Q8_0]:
        x = weights(rng)
        blocks = quantize(x, qtype)
        _, type_size = gguf.GGML_QUANT_SIZES[qtype]
        assert blocks.dtype == np.uint8 and blocks.shape == (x.shape[0], type_size)
        name = qtype.name.lower()
        (OUT / f"{name}.input.bin").write_bytes(x.astype("<f4").tobytes())
        (OUT / f"{name}.expected.bin").write_bytes(blocks.tobytes())
        entries.append({"name": name, "type": int(qtype), "blocks": int(x.shape[0]),
                        "inputFile": f"{name}.input.bin", "expectedFile": f"{name}.expected.bin"})
    from importlib.metadata import version
    index = {
        "generator": "make_quant_fixtures.py",
        "reference": f"gguf {version('gguf')} gguf.quants.quantize, numpy {np.__version__}",
        "seed": SEED,
        "formats": entries,
    }
    (OUT / "index.json").write_text(json.dumps(index, indent=1) + "\n")


if __name__ == "__main__":
    main()
