#!/usr/bin/python3
"""export_torch.py — a PyTorch model as a remat-graph training graph.

    tools/export_torch.py MODEL [--batch N] [--input-shape C,H,W] [--dtype float32]
                          [--forward-only] [--check] -o GRAPH.json

MODEL is a torchvision model name (resnet18, ...), a factory in tools/models.py
(unet, gpt2, lstm64, siamese) or path/to/file.py:factory (returning a module, or
(module, input_shape)). The model is traced with torch.fx and shapes are
propagated on a real example input; sizes come from shapes and dtypes, costs
from FLOP formulas. Unless --forward-only, the loss and one backward node per
forward node are added: node v.grad reads the gradients of v's consumers (or
the loss) and exactly the tensors PyTorch's autograd saves for v's operator
(per-operator rules below), and has v's size. --check runs the model once on
the CPU with torch.autograd.graph.saved_tensors_hooks and reports the bytes
autograd really saved next to the bytes the graph keeps for backward.

Runs on Debian's python3 with python3-torch and python3-torchvision.
"""
import argparse
import importlib.util
import math
import operator
import os
import sys

try:
    import torch
    import torch.fx
    from torch.fx.passes.shape_prop import ShapeProp
except ImportError:
    sys.exit("export_torch: PyTorch is not installed for %s (apt-get install python3-torch "
             "python3-torchvision)" % sys.executable)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from remat_graph import SAVED, VIEWS, add_training, kept_for_backward, with_bases, write_graph  # noqa: E402

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


def load_model(spec, batch, input_shape, dtype):
    """(module, example input) for MODEL."""
    shape = None
    if ":" in spec:
        path, factory = spec.rsplit(":", 1)
        modspec = importlib.util.spec_from_file_location("user_model", path)
        mod = importlib.util.module_from_spec(modspec)
        modspec.loader.exec_module(mod)
        made = getattr(mod, factory)()
    else:
        import models
        if hasattr(models, spec):
            made = getattr(models, spec)()
        else:
            import torchvision
            if not hasattr(torchvision.models, spec):
                sys.exit("export_torch: unknown model '%s' (a torchvision name, %s, or "
                         "file.py:factory)" % (spec, ", ".join(["unet", "gpt2", "lstm64", "siamese"])))
            made = getattr(torchvision.models, spec)(weights=None)
            shape = (3, 224, 224)
    model, shape = made if isinstance(made, tuple) else (made, shape)
    if input_shape:
        shape = tuple(int(x) for x in input_shape.split(","))
    if shape is None:
        sys.exit("export_torch: give --input-shape for model '%s'" % spec)

    def example(s):
        if isinstance(s[0], tuple):
            return tuple(example(x) for x in s)
        if s[0] == "long":
            return torch.randint(0, s[2], (batch, s[1]))
        return torch.randn((batch,) + tuple(s), dtype=dtype)

    return model.to(dtype), example(shape)


def trace(model, spec):
    try:
        return torch.fx.symbolic_trace(model)
    except Exception as ex:  # fx raises several types; name the failing op
        tb = ex.__traceback__
        where = ""
        while tb:
            code = tb.tb_frame.f_code
            if "torch" not in code.co_filename:
                where = "%s:%d in %s" % (os.path.basename(code.co_filename), tb.tb_lineno, code.co_name)
            tb = tb.tb_next
        sys.exit("export_torch: cannot trace %s (dynamic control flow?): %s%s"
                 % (spec, str(ex).splitlines()[0], " at " + where if where else ""))


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
            t = getattr(gm, n.target) if "." not in n.target else gm.get_parameter(n.target)
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


def autograd_saved_bytes(model, example):
    """Bytes autograd actually saves (unique storages, parameters and the
    model input excluded), measured with saved_tensors_hooks on the CPU."""
    params = {p.data_ptr() for p in model.parameters()}
    inputs = set()
    for t in as_args(example):
        inputs.add(t.data_ptr())
    seen = {}

    def pack(t):
        ptr = t.untyped_storage().data_ptr() if hasattr(t, "untyped_storage") else t.storage().data_ptr()
        if ptr not in params and ptr not in inputs:
            size = t.untyped_storage().nbytes() if hasattr(t, "untyped_storage") else t.storage().nbytes()
            seen[ptr] = max(seen.get(ptr, 0), size)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = model(*as_args(example))
        (out.float().sum()).backward()
    return sum(seen.values())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--input-shape")
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--forward-only", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    dtype = getattr(torch, a.dtype, None)
    if not isinstance(dtype, torch.dtype):
        sys.exit("export_torch: unknown dtype '%s'" % a.dtype)
    torch.manual_seed(0)
    model, example = load_model(a.model, a.batch, a.input_shape, dtype)
    model.train()
    gm = trace(model, a.model)
    nodes, _ = build_graph(gm, example, a.forward_only)
    nodes = [n for n in nodes if n is not None]
    name = "%s-%s-b%d" % (a.model.split(":")[-1], "fwd" if a.forward_only else "train", a.batch)
    source = ("tools/export_torch.py %s --batch %d (torch %s): torch.fx symbolic trace and shape "
              "propagation; sizes from shapes x dtype; costs are FLOP formulas; backward nodes by "
              "per-operator saved-tensor rules" % (a.model, a.batch, torch.__version__))
    write_graph(a.output, name, source, nodes)
    msg = "export_torch: %s: %d nodes -> %s" % (name, len(nodes), a.output)
    if a.check and not a.forward_only:
        kept = kept_for_backward(nodes)
        real = autograd_saved_bytes(model, example)
        msg += "; kept for backward %d bytes, autograd saved %d bytes (%+.1f%%)" % (
            kept, real, 100.0 * (kept - real) / real if real else 0.0)
    print(msg, file=sys.stderr)


if __name__ == "__main__":
    main()
