#!/usr/bin/env python3
"""Checks a file written by `pocket quantize` with an independent reader (gguf-py).

    python3 Tests/PocketKernelsTests/Fixtures/check_quantized_gguf.py IN.gguf OUT.gguf [TABLE.txt]

- OUT opens with `gguf.GGUFReader` (GGUF v3), every tensor's data offset is a multiple of the
  alignment, and tensor names, shapes and order equal IN's.
- Metadata is copied: every key of IN is in OUT with the same value, except
  `general.file_type` (the new mix).
- Every tensor of OUT decodes with `gguf.quants.dequantize`; its RMS difference from IN's
  decoded tensor is printed, and, when TABLE (the stdout of `pocket quantize`) is given, must
  agree with the RMS error Pocket printed to its 4 significant digits (Pocket decodes with its
  own decoders, so agreement means gguf-py reads Pocket's bytes as Pocket meant them).

Exit status 0 when every check passes.
"""
import sys

import numpy as np
from gguf import GGUFReader
from gguf.quants import dequantize


def field_value(field):
    parts = [np.asarray(field.parts[i]).tolist() for i in field.data]
    return parts


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__)
        return 2
    source, output = GGUFReader(argv[1]), GGUFReader(argv[2])
    failures = []
    table = {}
    if len(argv) == 4:
        for line in open(argv[3]):
            columns = line.split()
            if len(columns) >= 8 and columns[3] == "->" and columns[0] != "tensor":
                table[columns[0]] = float(columns[6])

    version = int(output.fields["GGUF.version"].parts[-1][0])
    if version != 3:
        failures.append(f"version {version}, expected 3")
    for key, field in source.fields.items():
        if key.startswith("GGUF.") or key == "general.file_type":
            continue
        if key not in output.fields:
            failures.append(f"metadata key {key} missing")
        elif field_value(field) != field_value(output.fields[key]) or field.types != output.fields[key].types:
            failures.append(f"metadata key {key} differs")
    alignment = output.alignment
    if [t.name for t in source.tensors] != [t.name for t in output.tensors]:
        failures.append("tensor names or order differ")
    worst = 0.0
    for a, b in zip(source.tensors, output.tensors):
        if list(a.shape) != list(b.shape):
            failures.append(f"{b.name}: shape {list(b.shape)} != {list(a.shape)}")
            continue
        if (b.data_offset - output.data_offset) % alignment != 0:
            failures.append(f"{b.name}: offset not aligned to {alignment}")
        x = np.asarray(dequantize(a.data, a.tensor_type), dtype=np.float64).reshape(-1)
        y = np.asarray(dequantize(b.data, b.tensor_type), dtype=np.float64).reshape(-1)
        rms = float(np.sqrt(np.mean((y - x) ** 2)))
        line = f"{b.name:28s} {a.tensor_type.name:>5s} -> {b.tensor_type.name:<5s} rms {rms:.4e}"
        if b.name in table:
            pocket = table[b.name]
            agree = abs(pocket - rms) <= 1e-3 * max(abs(rms), 1e-30) + 5e-4 * abs(pocket) or (pocket == 0 and rms == 0)
            line += f"  pocket {pocket:.3e} {'ok' if agree else 'MISMATCH'}"
            if not agree:
                failures.append(f"{b.name}: gguf-py RMS {rms:.4e}, pocket printed {pocket:.3e}")
            worst = max(worst, abs(pocket - rms) / max(rms, 1e-30))
        elif table:
            failures.append(f"{b.name}: not in pocket's table")
        print(line)
    print(f"{len(output.tensors)} tensors, alignment {alignment}, GGUF v{version}"
          + (f", largest relative RMS disagreement with pocket's table {worst:.2e}" if table else ""))
    for failure in failures:
        print("FAIL:", failure)
    print("OK" if not failures else f"{len(failures)} failures")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
