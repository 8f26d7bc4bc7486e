#!/usr/bin/python3
"""export_onnx.py — an ONNX model as a remat-graph training graph.

    tools/export_onnx.py MODEL.onnx [--batch N] [--forward-only] -o GRAPH.json

Shapes come from ONNX shape inference (a symbolic batch dimension is set to
--batch); initializers become parameter inputs; each ONNX node is one
operation whose value is the sum of its outputs. Costs are FLOP formulas
(Conv, ConvTranspose, Gemm, MatMul; element counts otherwise). The training
part is added with the same per-operator rules as export_torch.py.
Runs on Debian's python3 with python3-onnx.
"""
import argparse
import os
import sys

try:
    import onnx
    from onnx import shape_inference, numpy_helper  # noqa: F401
except ImportError:
    sys.exit("export_onnx: the onnx package is not installed for %s (apt-get install python3-onnx)"
             % sys.executable)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from remat_graph import add_training, with_bases, write_graph  # noqa: E402

ELEM = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 16: 2}
OPS = {  # ONNX op type -> the operator names of remat_graph.SAVED
    "Conv": "conv2d", "ConvTranspose": "conv_transpose2d", "Gemm": "linear", "MatMul": "matmul",
    "Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Softmax": "softmax",
    "LogSoftmax": "log_softmax", "BatchNormalization": "batch_norm",
    "LayerNormalization": "layer_norm", "MaxPool": "max_pool2d", "Mul": "mul", "Div": "div",
    "Add": "add", "Sub": "sub", "Concat": "cat", "Flatten": "flatten", "Reshape": "reshape",
    "Transpose": "transpose", "Split": "split", "GlobalAveragePool": "adaptive_avg_pool2d",
    "AveragePool": "avg_pool2d", "ReduceMean": "mean", "ReduceSum": "sum", "Gather": "embedding",
    "Identity": "identity", "Dropout": "dropout", "Squeeze": "squeeze", "Unsqueeze": "unsqueeze",
    "Erf": "gelu", "Pow": "pow", "Exp": "exp", "Neg": "neg",
}
VIEW_TYPES = {"Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity"}


def dims(vi, batch):
    t = vi.type.tensor_type
    out = []
    for d in t.shape.dim:
        out.append(d.dim_value if d.HasField("dim_value") else batch)
    return out, ELEM.get(t.elem_type, 4)


def numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--forward-only", action="store_true")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    try:
        m = onnx.load(a.model)
        m = shape_inference.infer_shapes(m)
    except Exception as ex:
        sys.exit("export_onnx: %s: cannot read: %s" % (a.model, str(ex).splitlines()[0]))
    g = m.graph
    info = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        info[vi.name] = dims(vi, a.batch)
    inits = {t.name: t for t in g.initializer}
    nodes, producer, consumers, root = [], {}, {}, {}
    used = set()

    def fresh(base):
        name, k = base, 1
        while name in used:
            name, k = "%s.%d" % (base, k), k + 1
        used.add(name)
        return name

    for t in g.initializer:
        nid = fresh("param:" + t.name)
        producer[t.name] = nid
        nodes.append(dict(id=nid, op="param", phase="input", cost=0,
                          size=numel(t.dims) * ELEM.get(t.data_type, 4)))
    for vi in g.input:
        if vi.name in inits:
            continue
        shape, es = info[vi.name]
        nid = fresh(vi.name)
        producer[vi.name] = nid
        nodes.append(dict(id=nid, op="input", phase="input", cost=0, size=numel(shape) * es))
    for i, n in enumerate(g.node):
        op = OPS.get(n.op_type, n.op_type.lower())
        nid = fresh(n.name or "%s_%d" % (n.op_type, i))
        direct = [producer[x] for x in n.input if x in producer]
        ins = with_bases(list(dict.fromkeys(direct)), root)
        size, out_n = 0, 0
        for o in n.output:
            if o in info:
                shape, es = info[o]
                size += numel(shape) * es
                out_n += numel(shape)
            producer[o] = nid
        if n.op_type == "MaxPool":
            size += out_n * 8  # indices kept for backward
        cost = max(out_n, 1)
        if n.op_type in ("Conv", "ConvTranspose") and len(n.input) > 1 and n.input[1] in inits:
            w = inits[n.input[1]].dims  # [Cout, Cin/groups, kh, kw]
            k = numel(w[1:])
            cost = 2 * out_n * k if n.op_type == "Conv" else 2 * out_n * w[0] * numel(w[2:]) // max(1, w[1])
        elif n.op_type in ("Gemm", "MatMul") and n.input[0] in info:
            cost = 2 * out_n * int(info[n.input[0]][0][-1] or 1)
        d = dict(id=nid, op=op, phase="fwd", cost=cost, size=size, inputs=ins)
        if n.op_type in VIEW_TYPES and direct:
            d["grad_size"], d["size"] = size, 0
            root[nid] = root.get(direct[0], direct[0])
        nodes.append(d)
        for x in ins:
            consumers.setdefault(x, []).append(nid)
    outs = [producer[o.name] for o in g.output if o.name in producer]
    if not a.forward_only:
        nodes = add_training(nodes, outs, consumers, root)
    name = "%s-%s-b%d" % (os.path.splitext(os.path.basename(a.model))[0],
                          "fwd" if a.forward_only else "train", a.batch)
    source = ("tools/export_onnx.py %s --batch %d (onnx %s): ONNX shape inference; sizes from shapes x "
              "element type; costs are FLOP formulas; backward nodes by per-operator saved-tensor rules"
              % (os.path.basename(a.model), a.batch, onnx.__version__))
    write_graph(a.output, name, source, nodes)
    print("export_onnx: %s: %d nodes -> %s" % (name, len(nodes), a.output), file=sys.stderr)


if __name__ == "__main__":
    main()
