#!/usr/bin/python3
"""export_torch.py — a PyTorch model as a remat-graph training graph.

    tools/export_torch.py MODEL [--batch N] [--input-shape SHAPE] [--dtype float32]
                          [--seed S] [--level joint|layer] [--trace auto|fake|real]
                          [--cost flop|unit] [--time [REPS]] [--forward-only] [--check]
                          -o GRAPH.json
    tools/export_torch.py --module path.py:Class --input-shape SHAPE ... -o GRAPH.json

MODEL is a torchvision model name (resnet18, ...), a factory in tools/models.py
(unet, gpt2, lstm64, siamese, transformer, tiny_cnn, tiny_gpt) or
path/to/file.py:factory (returning a module, or (module, input_shape)).
SHAPE is C,H,W (several inputs: 3,64,64;512; token ids: long:LEN:VOCAB).

--level joint (the default): the joint forward+backward graph of ATen
operators that autograd executes, captured with functorch's aot_function
(tools/torch_joint.py): views folded into the tensor they alias, sizes from
the storages, costs FLOP estimates, with --cost unit 1 per operator (the
FastSA paper's setting), or with --time the fastest of REPS (default 3) CPU
runs of each operator in microseconds. The graph records the recipe (model,
batch, input shape, dtype, seed; "trace": "fake" when traced with fake
tensors) that `remat replay --backend torch` and tools/train_with_plan.py
rebuild it from.

--trace fake (the default unless --time or --check is given) builds the
model with its parameters on the meta device and traces and analyses it
with fake tensors: shapes, strides and aliasing without data, so any batch
exports in seconds and without the memory (resnet50 at batch 256, a
LLaMA-7B shape at 8 x 2048 tokens). --trace real runs every operator on real
CPU tensors, as --time and --check need; both give the same graph.

--level layer: the layer-level graph of a torch.fx trace, with the backward
synthesised from per-operator saved-tensor rules (tools/remat_graph.py).

--check runs the model once on the CPU with
torch.autograd.graph.saved_tensors_hooks and reports the bytes autograd
really saved next to the bytes the graph keeps for the backward.

Runs on Debian's python3 with python3-torch and python3-torchvision.
"""
import argparse
import math
import operator
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from need_torch import need_torch  # noqa: E402
need_torch("export_torch")
import torch  # noqa: E402
import torch.fx  # noqa: E402
from torch.fx.passes.shape_prop import ShapeProp  # noqa: E402
from remat_graph import SAVED, VIEWS, add_training, kept_for_backward, with_bases, write_graph  # noqa: E402
import torch_joint  # noqa: E402

def numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def tensor_bytes(meta):
    """Bytes of a ShapeProp TensorMetadata, or of a tuple/list of them."""
    if meta is None:
        return 0
    # TensorMetadata is itself a namedtuple: test for it before tuples
    if hasattr(meta, "shape") and hasattr(meta, "dtype"):
        return numel(meta.shape) * torch.empty((), dtype=meta.dtype).element_size()
    if isinstance(meta, (tuple, list)):
        return sum(tensor_bytes(m) for m in meta)
    return 0


def shape_of(meta):
    if hasattr(meta, "shape"):
        return tuple(meta.shape)
    if isinstance(meta, (tuple, list)):
        return shape_of(meta[0]) if meta else ()
    return ()


def op_name(node, modules):
    if node.op == "call_module":
        m = modules[node.target]
        table = {
            torch.nn.Conv2d: "conv2d", torch.nn.ConvTranspose2d: "conv_transpose2d",
            torch.nn.Linear: "linear", torch.nn.BatchNorm2d: "batch_norm",
            torch.nn.LayerNorm: "layer_norm", torch.nn.ReLU: "relu", torch.nn.ReLU6: "relu",
            torch.nn.Hardswish: "silu", torch.nn.Hardsigmoid: "sigmoid", torch.nn.SiLU: "silu",
            torch.nn.GELU: "gelu", torch.nn.Sigmoid: "sigmoid", torch.nn.Tanh: "tanh",
            torch.nn.MaxPool2d: "max_pool2d", torch.nn.AdaptiveAvgPool2d: "adaptive_avg_pool2d",
            torch.nn.AvgPool2d: "avg_pool2d", torch.nn.Dropout: "dropout",
            torch.nn.Flatten: "flatten", torch.nn.Embedding: "embedding",
            torch.nn.Identity: "identity", torch.nn.Softmax: "softmax",
        }
        for cls, name in table.items():
            if isinstance(m, cls):
                return name
        return type(m).__name__.lower()
    if node.op == "call_function":
        t = node.target
        if t is operator.getitem:
            return "getitem"
        if t in (operator.add, operator.iadd):
            return "add"
        if t in (operator.mul, operator.imul):
            return "mul"
        if t is operator.truediv:
            return "truediv"
        if t is operator.sub:
            return "sub"
        if t is operator.neg:
            return "neg"
        if t is operator.pow:
            return "pow"
        name = getattr(t, "__name__", str(t))
        return name.lstrip("_").replace("relu_", "relu")
    if node.op == "call_method":
        return str(node.target)
    return node.op


def flops(op, node, modules, in_shapes, out_shape):
    """FLOPs of one forward run (multiply-add = 2)."""
    out_n = numel(out_shape) if out_shape else 0
    if op in ("conv2d", "conv_transpose2d") and node.op == "call_module":
        m = modules[node.target]
        kh, kw = m.kernel_size
        cin = m.in_channels // m.groups
        if op == "conv2d":
            return 2 * out_n * cin * kh * kw
        return 2 * numel(in_shapes[0]) * (m.out_channels // m.groups) * kh * kw
    if op == "linear" and node.op == "call_module":
        m = modules[node.target]
        return 2 * (out_n // m.out_features) * m.in_features * m.out_features
    if op in ("matmul", "bmm", "mm") and len(in_shapes) == 2 and in_shapes[0]:
        return 2 * out_n * int(in_shapes[0][-1])
    if op in ("batch_norm", "layer_norm", "softmax", "log_softmax", "gelu", "silu"):
        return 5 * out_n
    if op == "embedding":
        return out_n
    if op in ("max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "sum", "mean"):
        return max(out_n, numel(in_shapes[0]) if in_shapes and in_shapes[0] else 0)
    if op in SAVED and SAVED[op] == "" and op not in ("add", "sub", "cat"):
        return 0  # views and shape bookkeeping move no data
    return max(out_n, 1)


def trace(model, spec):
    try:
        return torch.fx.symbolic_trace(model)
    except Exception as ex:  # fx raises several types; name the failing line
        where = torch_joint.where_in_model(ex.__traceback__)
        sys.exit("export_torch: cannot trace %s with torch.fx (dynamic control flow?): %s%s"
                 % (spec, str(ex).strip().splitlines()[0], " at " + where if where else ""))


def as_args(example):
    """A model with several inputs gets its example as a tuple."""
    return example if isinstance(example, tuple) else (example,)


def build_graph(gm, example, forward_only):
    modules = dict(gm.named_modules())
    ShapeProp(gm).propagate(*as_args(example))
    nodes, ids, out_args = [], {}, []
    consumers = {}
    root = {}  # node id -> id of the value whose storage it shares (itself if none)

    def add(node_id, **kw):
        nodes.append(dict(id=node_id, **kw))
        return node_id

    def pnode(target, tensor):
        pid = "param:" + target
        if pid not in ids:
            ids[pid] = add(pid, op="param", phase="input", cost=0,
                           size=tensor.numel() * tensor.element_size())
        return ids[pid]

    for n in gm.graph.nodes:
        meta = n.meta.get("tensor_meta")
        if n.op == "placeholder":
            ids[n.name] = add(n.name, op="input", phase="input", cost=0, size=tensor_bytes(meta))
            continue
        if n.op == "get_attr":
            t = gm
            for part in n.target.split("."):   # a parameter or a buffer (swin_t's index)
                t = getattr(t, part)
            ids[n.name] = pnode(n.target, t)
            continue
        if n.op == "output":
            out_args = [a for a in torch.fx.node.map_arg(n.args[0], lambda x: x).__iter__()] \
                if isinstance(n.args[0], (tuple, list)) else [n.args[0]]
            continue
        op = op_name(n, modules)
        direct = [ids[a.name] for a in n.all_input_nodes if a.name in ids]
        ins = with_bases(direct, root)
        if n.op == "call_module":
            for pname, p in modules[n.target].named_parameters(recurse=False):
                ins.append(pnode(n.target + "." + pname, p))
        in_shapes = [shape_of(a.meta.get("tensor_meta")) for a in n.all_input_nodes]
        size = tensor_bytes(meta)
        if op == "max_pool2d":
            # max pooling also produces int64 indices that its backward keeps
            size += numel(shape_of(meta)) * 8
        if size == 0 and meta is None:
            size = 8  # python scalars (sizes): a few bytes
        logical = size
        if op in VIEWS and direct:
            size = 0
            root[n.name] = root.get(direct[0], direct[0])
        if op in ("mul", "truediv", "div") and len(direct) < 2:
            op += "_scalar"  # x * 2.0 saves no tensor for its backward
        ids[n.name] = add(n.name, op=op, phase="fwd", cost=flops(op, n, modules, in_shapes, shape_of(meta)),
                          size=size, inputs=ins)
        if logical != size:
            nodes[-1]["grad_size"] = logical
        for i in ins:
            consumers.setdefault(i, []).append(n.name)
    outs = [ids[a.name] for a in out_args if hasattr(a, "name") and a.name in ids]
    if forward_only:
        return nodes, None
    return add_training(nodes, outs, consumers, root), outs


def export_layer(a, model, example):
    """--level layer: the torch.fx graph with synthesised backward nodes."""
    gm = trace(model, a.model)
    try:
        nodes, _ = build_graph(gm, example, a.forward_only)
    except Exception as ex:  # shape propagation or a rule failing: one line
        where = torch_joint.where_in_model(ex.__traceback__)
        sys.exit("export_torch: cannot build the layer graph of %s: %s: %s%s (the joint level "
                 "handles it)" % (a.model, type(ex).__name__, str(ex).strip().splitlines()[0],
                                  " at " + where if where else ""))
    nodes = [n for n in nodes if n is not None]
    source = ("tools/export_torch.py %s --level layer --batch %d (torch %s): torch.fx symbolic "
              "trace and shape propagation; sizes from shapes x dtype; costs are FLOP formulas; "
              "backward nodes by per-operator saved-tensor rules" % (a.model, a.batch, torch.__version__))
    return nodes, None, source, "flop"


def export_joint(a, model, example):
    """--level joint: the aot_function joint graph (tools/torch_joint.py)."""
    try:
        values = torch_joint.primal_values(model, example)
        mode = None
        if a.trace == "fake":
            mode = torch_joint.fake_mode()
            values = torch_joint.fake_values(mode, values)
        gm, names = torch_joint.capture(model, example, mode, values)
        j = torch_joint.analyse(gm, names, values, timing=a.time, mode=mode)
    except torch_joint.Refused as ex:
        sys.exit("export_torch: cannot trace %s: %s" % (a.model, ex))
    nodes = j.nodes
    for d in nodes:
        t = d.pop("time", None)
        if a.time and d["phase"] != "input":
            d["cost"] = round(t * 1e6, 3)
        elif a.cost == "unit" and d["phase"] != "input":
            d["cost"] = 1
    if a.time:
        costs = "measured CPU microseconds (fastest of %d runs)" % a.time
    else:
        costs = "1 per operator" if a.cost == "unit" else "FLOP estimates"
    if a.trace == "fake":
        how = ("traced and analysed with fake tensors (shapes, strides and aliasing, no data); "
               "sizes from the storages' shapes")
    else:
        how = "sizes from the real storages"
    source = ("tools/export_torch.py %s --batch %d (torch %s): joint forward+backward graph of ATen "
              "operators from functorch aot_function; views folded into the tensor they alias; "
              "%s; costs %s" % (a.model, a.batch, torch.__version__, how, costs))
    return nodes, j.outputs, source, "us" if a.time else "unit" if a.cost == "unit" else "flop"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model", nargs="?")
    ap.add_argument("--module", help="path.py:Class of a user's own module")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--input-shape")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model-arg", action="append", default=[], metavar="KEY=VALUE",
                    help="constructor keyword argument (an int, float or string), e.g. image_size=64")
    ap.add_argument("--level", choices=("joint", "layer"), default="joint")
    ap.add_argument("--time", type=int, nargs="?", const=3, default=0, metavar="REPS")
    ap.add_argument("--cost", choices=("flop", "unit"), default="flop",
                    help="node costs: FLOP estimates, or 1 per operator (--time: measured)")
    ap.add_argument("--trace", choices=("auto", "fake", "real"), default="auto",
                    help="fake tensors (shapes only, fast; the default without --time and "
                         "--check) or real CPU tensors")
    ap.add_argument("--forward-only", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if bool(a.model) == bool(a.module):
        ap.error("give MODEL or --module path.py:Class (one of them)")
    a.model = a.model or a.module
    if a.forward_only and a.level == "joint":
        ap.error("--forward-only needs --level layer (a joint graph always has its backward)")
    if a.batch < 1:
        ap.error("--batch must be at least 1")
    if a.time and a.cost == "unit":
        ap.error("--time measures costs; --cost unit sets them to 1: give one of them")
    if a.trace == "auto":
        a.trace = "real" if a.time or a.check or a.level == "layer" else "fake"
    if a.trace == "fake" and a.time:
        ap.error("--time runs the operators: it needs --trace real")
    if a.trace == "fake" and a.level == "layer":
        ap.error("--level layer traces with real tensors (--trace real)")
    dtype = getattr(torch, a.dtype, None)
    if not isinstance(dtype, torch.dtype):
        sys.exit("export_torch: unknown dtype '%s'" % a.dtype)
    model_args = {}
    for kv in a.model_arg:
        k, eq, v = kv.partition("=")
        if not eq or not k:
            ap.error("--model-arg expects KEY=VALUE, got '%s'" % kv)
        for conv in (int, float, str):
            try:
                model_args[k] = conv(v)
                break
            except ValueError:
                pass
    try:
        model, example = torch_joint.load_model(a.model, a.batch, a.input_shape, dtype, a.seed,
                                                model_args, fake=a.trace == "fake")
    except torch_joint.Refused as ex:
        sys.exit("export_torch: %s" % ex)
    except TypeError as ex:
        sys.exit("export_torch: %s: %s" % (a.model, ex))
    if a.level == "layer":
        nodes, outputs, source, unit = export_layer(a, model, example)
        recipe = None
    else:
        nodes, outputs, source, unit = export_joint(a, model, example)
        recipe = {"model": os.path.abspath(a.model) if ":" in a.model else a.model,
                  "batch": a.batch, "input_shape": a.input_shape, "dtype": a.dtype,
                  "seed": a.seed, "loss": "sum", "level": "joint", "torch": torch.__version__}
        if a.trace == "fake":
            recipe["trace"] = "fake"
        if model_args:
            recipe["model_args"] = model_args
    name = "%s-%s-b%d" % (os.path.basename(a.model.split(":")[-1]),
                          "fwd" if a.forward_only else "joint" if a.level == "joint" else "train",
                          a.batch)
    write_graph(a.output, name, source, nodes, outputs=outputs, recipe=recipe, cost_unit=unit)
    msg = "export_torch: %s: %d nodes -> %s" % (name, len(nodes), a.output)
    if a.check and not a.forward_only:
        kept = kept_for_backward(nodes) if a.level == "layer" else torch_joint.kept_for_backward(nodes)
        if a.trace == "fake":  # the check runs the model: build it for real
            model, example = torch_joint.load_model(a.model, a.batch, a.input_shape, dtype, a.seed,
                                                    model_args)
        real = torch_joint.autograd_saved_bytes(model, example)
        msg += "; kept for backward %d bytes, autograd saved %d bytes (%+.1f%%)" % (
            kept, real, 100.0 * (kept - real) / real if real else 0.0)
    print(msg, file=sys.stderr)


if __name__ == "__main__":
    main()
