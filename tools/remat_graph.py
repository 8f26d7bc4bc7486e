"""remat_graph.py — what the exporters share: the per-operator rules of what
autograd saves for backward, aliasing of views, the training-graph builder
and the remat-graph writer.

Nodes are dicts with the remat-graph fields (id, op, phase, cost, size,
inputs, grad_of); a view node has size 0 and "grad_size" with its logical
size (its gradient is a real tensor).
"""
import json

# Operators whose backward needs (i)nputs, (o)utput, (w)eights; anything
# else falls back to inputs and output, which over-estimates rather than
# hides memory.
SAVED = {
    "conv2d": "i", "conv_transpose2d": "i", "linear": "i", "matmul": "i", "bmm": "i",
    "mm": "i", "embedding": "i", "relu": "o", "sigmoid": "o", "tanh": "o", "softmax": "o",
    "log_softmax": "o", "gelu": "i", "silu": "i", "batch_norm": "i", "layer_norm": "i",
    "max_pool2d": "io", "mul": "i", "truediv": "i", "div": "i", "add": "", "sub": "",
    "cat": "", "flatten": "", "reshape": "", "view": "", "transpose": "", "permute": "",
    "getitem": "", "split": "", "chunk": "", "contiguous": "", "sum": "", "mean": "",
    "adaptive_avg_pool2d": "", "avg_pool2d": "", "dropout": "", "new_zeros": "", "size": "",
    "neg": "", "pow": "i", "exp": "o", "identity": "", "mul_scalar": "", "truediv_scalar": "",
    "div_scalar": "",
}
HEAVY_BWD = {"conv2d", "conv_transpose2d", "linear", "matmul", "bmm", "mm"}
# Operators whose result shares its input's storage. They become zero-size
# nodes, and whoever reads a view also reads the view's base, so the base
# stays alive exactly as long as any view of it is used.
VIEWS = {"getitem", "view", "reshape", "transpose", "permute", "flatten", "split", "chunk",
         "expand", "narrow", "squeeze", "unsqueeze", "t", "identity", "dropout_eval"}




def with_bases(names, root):
    """names plus the storage base of every view among them (deduplicated,
    in order): reading a view keeps its base alive."""
    out = []
    for x in names:
        out.append(x)
        if root.get(x, x) != x:
            out.append(root[x])
    return list(dict.fromkeys(out))


def add_training(nodes, outs, consumers, root):
    """Forward nodes + a loss reading outs + one backward node per forward
    node that gradient flows to. v.grad reads the gradients of v's forward
    consumers (or the loss) and what autograd saves for v's operator
    (SAVED: i = inputs, o = output; unknown operators keep both)."""
    by_id = {d["id"]: d for d in nodes}
    nodes = nodes + [dict(id="loss", op="loss", phase="loss",
                          cost=max(1, sum(by_id[o]["size"] for o in outs) // 4), size=4, inputs=outs)]
    grads = []
    for d in reversed([d for d in nodes if d["phase"] == "fwd"]):
        rule = SAVED.get(d["op"], "io")
        src = ["loss"] if d["id"] in outs else []
        src += [c + ".grad" for c in consumers.get(d["id"], []) if by_id[c]["phase"] == "fwd"]
        if not src:
            continue  # nothing flows back to this value (e.g. shape arithmetic)
        saved = []
        if "i" in rule:
            saved += d["inputs"]
        if "o" in rule:
            saved.append(d["id"])
        saved = with_bases(saved, root)
        cost = d["cost"] * (2 if d["op"] in HEAVY_BWD else 1)
        grads.append(dict(id=d["id"] + ".grad", op=d["op"] + "_bwd", phase="bwd", cost=cost,
                          size=d.get("grad_size", d["size"]), inputs=list(dict.fromkeys(src + saved)),
                          grad_of=d["id"]))
    # gradient sources that were skipped (no flow) must not be referenced
    have = {g["id"] for g in grads}
    for g in grads:
        g["inputs"] = [i for i in g["inputs"] if not i.endswith(".grad") or i in have]
    for d in nodes:
        d.pop("grad_size", None)
    return nodes + grads


def kept_for_backward(nodes):
    """Bytes of forward activations (not parameters, not model inputs) that
    some backward node reads: what a no-recomputation run keeps."""
    by_id = {d["id"]: d for d in nodes}
    kept = set()
    for d in nodes:
        if d["phase"] == "bwd":
            for i in d["inputs"]:
                if by_id[i]["phase"] == "fwd":
                    kept.add(i)
    return sum(by_id[i]["size"] for i in kept)



def write_graph(path, name, source, nodes, outputs=None, recipe=None, cost_unit="flop"):
    """The remat-graph document; `recipe` (optional) is what the torch
    replay rebuilds the model from (docs/models.md)."""
    for d in nodes:
        d.pop("grad_size", None)
    doc = {"format": "remat-graph", "version": 1, "name": name, "source": source,
           "units": {"cost": cost_unit, "size": "byte"}}
    if recipe:
        doc["recipe"] = recipe
    doc["nodes"] = nodes
    if outputs:
        doc["outputs"] = outputs
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
