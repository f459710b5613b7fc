#!/usr/bin/env python3
"""Independent reference facts for the PocketGGUF tests, produced with the `gguf` PyPI package.

Run from the package root:  python3 Tests/PocketGGUFTests/Fixtures/make_fixtures.py

1. Reads the small test model (Weights/SmolLM2-135M-Instruct.Q4_1.gguf) with gguf.GGUFReader and
   writes smollm2.json: header facts, every metadata key in file order with its type and
   value (arrays summarized by count, first and last elements), and every tensor's name,
   dimensions (ne0 first), ggml type number, offset relative to the data section and byte size.
2. Writes ggml_types.json: every tensor type gguf-py knows, with its block and type size.
3. If writer_sample.gguf exists (written by the Swift GGUFWriter, see GGUFWriterTests), reads it
   with gguf.GGUFReader and writes writer_sample.json with everything the reader saw, so the
   Swift tests can check that an independent reader understands the writer's output.
"""
import json
import zlib
import os
import sys

import gguf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def field_value(field):
    """The Python value of a metadata field, arrays of any depth included."""
    types = field.types
    if types[0] == gguf.GGUFValueType.ARRAY:
        return [decode(field, i, types[1:]) for i in range(len(field.data))]
    return decode(field, 0, types)


def decode(field, index, types):
    part = field.parts[field.data[index]]
    t = types[0]
    if t == gguf.GGUFValueType.STRING:
        return bytes(part).decode("utf-8")
    if t == gguf.GGUFValueType.ARRAY:
        raise ValueError("nested arrays are summarized separately")
    value = part.tolist()[0]
    if t == gguf.GGUFValueType.BOOL:
        return bool(value)
    return value


def type_name(t):
    return t.name.lower()


def describe_field(field):
    entry = {"type": type_name(field.types[0])}
    if field.types[0] == gguf.GGUFValueType.ARRAY:
        # gguf-py records no element type for an empty array.
        entry["element_type"] = type_name(field.types[1]) if len(field.types) > 1 else None
        entry["count"] = len(field.data)
        if len(field.types) != 2:
            # Empty or nested: record how gguf-py split the value's bytes (value type, element
            # type, count, then each element's own parts), flattened to numbers.
            entry["parts"] = [x for part in field.parts[2:] for x in part.tolist()]
        else:
            values = field_value(field)
            entry["first"] = values[:5]
            entry["last"] = values[-1] if values else None
    else:
        entry["value"] = field_value(field)
    return entry


def describe_file(path, full_arrays=False):
    reader = gguf.GGUFReader(path)
    header_keys = {"GGUF.version", "GGUF.tensor_count", "GGUF.kv_count"}
    metadata = []
    for key, field in reader.fields.items():
        if key in header_keys:
            continue
        entry = {"key": key, **describe_field(field)}
        if full_arrays and field.types[0] == gguf.GGUFValueType.ARRAY and len(field.types) == 2:
            entry["values"] = field_value(field)
        metadata.append(entry)
    alignment = reader.alignment
    tensors = []
    for t in reader.tensors:
        tensors.append({
            "name": t.name,
            "dimensions": [int(d) for d in t.shape],
            "type": int(t.tensor_type),
            "offset": int(t.data_offset) - int(reader.data_offset),
            "byte_count": int(t.n_bytes),
            "first_bytes": list(bytes(t.data.tobytes()[:8])) if t.n_bytes else [],
        })
    return {
        "version": int(reader.fields["GGUF.version"].parts[-1][0]),
        "tensor_count": len(reader.tensors),
        "kv_count": len(metadata),
        "alignment": int(alignment),
        "data_offset": int(reader.data_offset),
        "file_size": os.path.getsize(path),
        "metadata": metadata,
        "tensors": tensors,
    }


def write_json(name, facts):
    out = os.path.join(HERE, name)
    with open(out, "w") as f:
        json.dump(facts, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote", out)


def ggml_types():
    """Every tensor type gguf-py knows: number, name, elements per block, bytes per block."""
    return [{"type": int(t), "name": t.name.lower(), "block_size": gguf.GGML_QUANT_SIZES[t][0],
             "type_size": gguf.GGML_QUANT_SIZES[t][1]} for t in gguf.GGMLQuantizationType]


def main():
    write_json("ggml_types.json", ggml_types())
    model = os.path.join(ROOT, "Weights", "SmolLM2-135M-Instruct.Q4_1.gguf")
    if os.path.exists(model):
        write_json("smollm2.json", describe_file(model))
    else:
        print("SmolLM2 absent, skipping", model, file=sys.stderr)
    sample = os.path.join(HERE, "writer_sample.gguf")
    if os.path.exists(sample):
        facts = describe_file(sample, full_arrays=True)
        # The exact bytes the reader saw, so the test can check its own output is the same file
        # without the file being committed.
        with open(sample, "rb") as f:
            facts["crc32"] = zlib.crc32(f.read())
        write_json("writer_sample.json", facts)


if __name__ == "__main__":
    main()
