#!/usr/bin/python3
"""replay_torch.py — run a plan's schedule with the model's own operators.

    tools/replay_torch.py GRAPH PLAN -o MEASURED.json [--device auto|cpu|cuda]

GRAPH is a joint graph written by tools/export_torch.py; its "recipe" (model,
batch, input shape, dtype, seed) rebuilds the model and its inputs, and a new
aot_function trace of the same recipe gives back the ATen operator of every
node (node ids are the trace's names; tools/torch_joint.py). The schedule then
runs for real: each step runs its node's operator on the values in memory
(views are made again from their base wherever read), a node that appears
again is recomputed, and every value is dropped after its last read before
it is produced again (the spec's semantics; outputs are kept to the end).

Measured at every step, after the operator ran and before anything is
freed: on the CPU the bytes of every live tensor storage (values held,
parameters, buffers, inputs, and the outputs an operator returned that the
step drops at once), on CUDA torch.cuda.max_memory_allocated over
the step (reset before it), which includes the caching allocator's rounding
and any workspace the operator takes. Random operators (dropout, stochastic
depth) are reseeded before every run from the node's position among them, so
a recomputation draws the same mask; the reference step (plain autograd on a
model built from the same recipe) is reseeded the same way, call by call.
The parameter gradients the schedule produced are compared with the
reference's. Writes the remat-replay document (docs/replay.md) with
"gradients": {"match", "max_abs_diff"}.

--device auto (the default) uses CUDA when torch sees a GPU, else the CPU.
Runs on Debian's python3 with python3-torch and python3-torchvision.
"""
import argparse
import json
import math
import operator
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from need_torch import need_torch  # noqa: E402
need_torch("replay_torch")
import torch  # noqa: E402
import torch_joint  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

# gradient comparison: each parameter's gradient within GRAD_RTOL of its own
# largest reference magnitude plus GRAD_GTOL of the largest over all
# parameters. The second term is float32 summation order: a gradient that
# cancels to about zero (a batch-norm bias feeding another batch norm) is
# summed in another order by the traced graph than by eager autograd
# (efficientnet_b0: 5.3e-4 against a largest gradient of 295, 1.8e-6 of it)
GRAD_RTOL = 1e-4
GRAD_GTOL = 1e-5


def fail(msg):
    sys.exit("replay_torch: " + msg)


def load_json(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as ex:
        fail("%s: %s" % (path, ex.strerror))
    except ValueError as ex:
        fail("%s: not a %s JSON document (%s)" % (path, what, ex))


def holds(sched, outputs):
    """For each step, the values to drop after it: a value produced at step
    p lives until its last read before it is produced again, or to the end
    for an output's last production (spec §3). Also the interval list
    (value, first, last) for the simulated curve."""
    T = len(sched)
    last_read = {}
    ends = {}
    intervals = []
    open_at = {}
    for t in range(T):
        v, ins = sched[t]
        for u in ins:
            if u in open_at:
                last_read[u] = t
        if v in open_at:
            p = open_at[v]
            intervals.append((v, p, last_read.get(v, p)))
        open_at[v] = t
        last_read.pop(v, None)
    for v, p in open_at.items():
        intervals.append((v, p, T - 1 if v in outputs else last_read.get(v, p)))
    drop = [[] for _ in range(T)]
    for v, p, e in intervals:
        if not (v in outputs and e == T - 1 and open_at[v] == p):
            drop[e].append((v, p))
        ends[(v, p)] = e
    return drop, intervals


class Reseed(TorchDispatchMode):
    """Reseeds the generators before each random operator call, the k-th
    call with seed_base + k: the eager reference draws what the replay's
    k-th random node draws, however often the replay reruns it."""

    def __init__(self, base):
        super().__init__()
        self.base, self.k = base, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if torch_joint.is_random(func):
            torch.manual_seed(self.base + self.k)
            self.k += 1
        return func(*args, **(kwargs or {}))


def storages(x, acc):
    if isinstance(x, torch.Tensor):
        p, nb = torch_joint.storage_of(x)
        acc[p] = nb
    elif isinstance(x, (tuple, list)):
        for e in x:
            storages(e, acc)


def pearson(xs, ys):
    n = len(xs)
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / math.sqrt(sxx * syy)


def to_device(x, dev):
    if isinstance(x, torch.device):
        return dev
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(e, dev) for e in x)
    if isinstance(x, dict):
        return {k: to_device(v, dev) for k, v in x.items()}
    return x


def rebuild(recipe, device):
    """(model on device, example on device, joint GraphModule, primal names,
    primal values on device, the exporter's analysis of the trace). The trace
    and its analysis run on the CPU, where the exporter ran, so that the
    operators, node names and sizes are the same."""
    dtype = getattr(torch, recipe.get("dtype", "float32"))
    try:
        model, example = torch_joint.load_model(recipe["model"], int(recipe["batch"]),
                                                recipe.get("input_shape"), dtype,
                                                int(recipe.get("seed", 0)),
                                                recipe.get("model_args"))
        gm, names = torch_joint.capture(model, example)
        j = torch_joint.analyse(gm, names, torch_joint.primal_values(model, example))
    except torch_joint.Refused as ex:
        fail("cannot rebuild the recipe's model %s: %s" % (recipe["model"], ex))
    model.to(device)
    example = tuple(x.to(device) for x in example)
    return model, example, gm, names, torch_joint.primal_values(model, example), j


def reference_grads(recipe, device, seed_base):
    """Parameter gradients of one plain autograd step on a model built from
    the same recipe, random operators reseeded call by call."""
    dtype = getattr(torch, recipe.get("dtype", "float32"))
    model, example = torch_joint.load_model(recipe["model"], int(recipe["batch"]),
                                            recipe.get("input_shape"), dtype,
                                            int(recipe.get("seed", 0)),
                                            recipe.get("model_args"))
    model.to(device)
    example = tuple(x.to(device) for x in example)
    with Reseed(seed_base):
        loss = torch_joint.loss_of(model(*example))
    loss.backward()
    return {"param:" + n: p.grad for n, p in model.named_parameters()}, float(loss)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("plan")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--no-reseed", action="store_true",
                    help="draw random operators from the running generator (a recomputed "
                         "dropout then draws another mask: what the gradient check catches)")
    a = ap.parse_args()

    doc = load_json(a.graph, "remat-graph")
    plan = load_json(a.plan, "remat-plan")
    recipe = doc.get("recipe") if isinstance(doc, dict) else None
    if not isinstance(recipe, dict) or "model" not in recipe or "batch" not in recipe:
        fail("%s: no recipe: the torch replay needs a joint graph written by "
             "tools/export_torch.py (its $.recipe rebuilds the model)" % a.graph)
    if not isinstance(plan, dict) or not isinstance(plan.get("schedule"), list):
        fail("%s: $.schedule: missing or not an array" % a.plan)
    if a.device == "cuda" and not torch.cuda.is_available():
        fail("no CUDA device visible to torch")
    cuda = a.device == "cuda" or (a.device == "auto" and torch.cuda.is_available())
    dev = torch.device("cuda" if cuda else "cpu")

    nodes = {d["id"]: d for d in doc["nodes"]}
    inputs = [d for d in doc["nodes"] if d.get("phase") == "input"]
    outputs = set(doc.get("outputs") or [])
    input_bytes = sum(int(d.get("size", 1)) for d in inputs)
    model, example, gm, names, values0, joint = rebuild(recipe, dev)
    fx = {n.name: n for n in gm.graph.nodes}
    consts = {n.name: "const:" + n.target for n in gm.graph.nodes if n.op == "get_attr"}
    const_fx = {v: k for k, v in consts.items()}
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    tangent = [n.name for n in placeholders if n.name.startswith("tangents")][0]
    primal_fx = [n.name for n in placeholders if not n.name.startswith("tangents")]
    resident = {}  # fx name -> value for placeholders and constants
    for fname, name, val in zip(primal_fx, names, values0):
        resident[fname] = val
    for n in gm.graph.nodes:
        if n.op == "get_attr":
            resident[n.name] = getattr(gm, n.target).to(dev)
    traced = {d["id"]: d for d in joint.nodes}
    for d in doc["nodes"]:
        i = d["id"]
        if i not in traced:
            fail("%s: node '%s' is not in the recipe's trace (the graph does not match its "
                 "recipe; export it again)" % (a.graph, i))
        if int(d.get("size", 1)) != traced[i]["size"]:
            fail("%s: node '%s' has size %d, the recipe's trace %d bytes (the graph does not "
                 "match its recipe; export it again)" % (a.graph, i, int(d.get("size", 1)),
                                                          traced[i]["size"]))
    missing = [i for i in traced if i not in nodes]
    if missing:
        fail("%s: the recipe's trace has node '%s', the graph has not (export it again)"
             % (a.graph, missing[0]))
    loss_id = [d["id"] for d in doc["nodes"] if d.get("phase") == "loss"]
    loss_id = loss_id[0] if loss_id else None

    sched_ids = plan["schedule"]
    sched = []
    for t, v in enumerate(sched_ids):
        if not isinstance(v, str) or v not in nodes or nodes[v].get("phase") == "input":
            fail("%s: schedule[%d]: '%s' is not a node the schedule may run" % (a.plan, t, v))
        sched.append((v, nodes[v].get("inputs", [])))
    drop, intervals = holds(sched, outputs)
    T = len(sched)
    # the simulated curve (spec §3), for the document
    sim = [input_bytes + int(nodes[v].get("workspace", 0)) for v, _ in sched]
    diff = [0] * (T + 1)
    for v, p, e in intervals:
        diff[p] += int(nodes[v].get("size", 1))
        diff[e + 1] -= int(nodes[v].get("size", 1))
    run = 0
    for t in range(T):
        run += diff[t]
        sim[t] += run

    remat = set(nodes)
    random_fx = [n.name for n in gm.graph.nodes if n.op == "call_function" and torch_joint.is_random(n.target)]
    seed_base = 1000003 * (int(recipe.get("seed", 0)) + 1)
    seed_of = {} if a.no_reseed else {name: seed_base + k for k, name in enumerate(random_fx)}
    # a forward operator's further outputs: one getitem node holds them
    merged_of = {}  # (op fx name, index) -> getitem node
    for gid, (op, ks) in joint.merged.items():
        for k in ks:
            merged_of[(op, k)] = gid

    held = {}     # remat id -> value (an operator with several outputs: a list)
    stash = {}    # getitem node -> the outputs its operator's run just before produced

    def ev(a):
        """The value of fx node a: held, resident, or (a view, a folded
        in-place base) made again from what it reads."""
        name = a.name
        if a.op == "call_function" and a.target is operator.getitem and \
                (a.args[0].name, a.args[1]) in merged_of:
            return ev_id(merged_of[(a.args[0].name, a.args[1])])[a.args[1]]
        if name in held:
            return held[name]
        if name in resident:
            return resident[name]
        if name == tangent:
            return torch.ones_like(held[loss_id])
        if name in remat:
            raise RuntimeError("step reads '%s', which is not in memory" % name)
        return call(a)

    def ev_id(i):
        if i not in held:
            raise RuntimeError("step reads '%s', which is not in memory" % i)
        return held[i]

    def call(n):
        args = torch.fx.node.map_arg(n.args, ev)
        kwargs = to_device(torch.fx.node.map_arg(n.kwargs, ev), dev)
        args = to_device(args, dev)
        if n.name in seed_of:
            torch.manual_seed(seed_of[n.name])
        return n.target(*args, **kwargs)

    steps, times, costs = [], [], []
    measured_peak = rss_peak = 0
    t_start = time.perf_counter()
    for t, (v, _) in enumerate(sched):
        n = fx[v]
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t0 = time.perf_counter()
        try:
            transient = None  # what the step allocated and drops at once
            if v in joint.merged:
                op, ks = joint.merged[v]
                if v in stash:
                    out = stash.pop(v)
                else:
                    # not the run just before: run the operator again
                    transient = call(fx[op])
                    out = [x if k in ks else None for k, x in enumerate(transient)]
            elif v in joint.extract1:
                op, k = joint.extract1[v]
                out = ev_id(op)[k]
            else:
                out = call(n)
            if cuda:
                torch.cuda.synchronize()
        except Exception as ex:  # an operator failing is one line, not a traceback
            fail("step %d (%s, %s): %s" % (t, v, n.target, str(ex).strip().splitlines()[0]))
        dt = time.perf_counter() - t0
        if isinstance(out, (tuple, list)):
            out = list(out)
            mine = {g: ks for g, (op, ks) in joint.merged.items() if op == v}
            for g, ks in mine.items():
                # a forward operator's further outputs go to their getitem
                # node when that runs next, else they are dropped now (the
                # graph counts them as this step's workspace only)
                if t + 1 < T and sched[t + 1][0] == g:
                    stash[g] = [x if k in ks else None for k, x in enumerate(out)]
                else:
                    transient = list(out)
                for k in ks:
                    out[k] = None
        held[v] = out
        if cuda:
            meas = torch.cuda.max_memory_allocated()
            rss = torch.cuda.memory_reserved()
        else:
            acc = {}
            for x in held.values():
                storages(x, acc)
            for x in stash.values():
                storages(x, acc)
            for x in resident.values():
                storages(x, acc)
            storages(transient, acc)
            meas = sum(acc.values())
            rss = 0  # the CPU allocator's resident set says little here (torch and the trace share it)
        measured_peak = max(measured_peak, meas)
        rss_peak = max(rss_peak, rss)
        steps.append({"node": v, "simulated": sim[t], "measured": meas, "rss": rss, "time_s": dt})
        times.append(dt)
        costs.append(float(nodes[v].get("cost", 1)))
        for u, _ in drop[t]:
            held.pop(u, None)
    seconds = time.perf_counter() - t_start

    # the gradients the schedule produced, against plain autograd's
    out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
    grads = {}
    for o, name in zip(list(out_node.args[0])[1:], names):
        if o is not None and name.startswith("param:"):
            try:
                grads[name] = ev(o).detach()
            except RuntimeError as ex:
                fail("the schedule ends without the gradient of %s: %s" % (name, ex))
    held.clear()
    stash.clear()
    ref, _ = reference_grads(recipe, dev, seed_base)
    worst, match = 0.0, True
    big = max((float(r.abs().max()) for r in ref.values() if r is not None and r.numel()),
              default=0.0)
    for name, r in ref.items():
        if r is None:
            continue
        g = grads.get(name)
        if g is None or g.shape != r.shape:
            match = False
            continue
        d = float((g - r).abs().max()) if r.numel() else 0.0
        worst = max(worst, d)
        if d > GRAD_RTOL * float(r.abs().max()) + GRAD_GTOL * big:
            match = False
    if cuda:
        device = "%s (%s, torch %s)" % (dev, torch.cuda.get_device_name(dev), torch.__version__)
    else:
        device = "cpu (torch %s, %d threads), live tensor storages" % (torch.__version__,
                                                                        torch.get_num_threads())
    res = {"format": "remat-replay", "version": 1, "graph": doc.get("name", ""),
           "solver": plan.get("solver", ""), "backend": "torch", "device": device, "scale": 1,
           "measured_peak": measured_peak, "simulated_peak": max(sim) if sim else input_bytes,
           "rss_peak": rss_peak, "time_cost_correlation": pearson(times, costs),
           "seconds": round(seconds, 6),
           "gradients": {"match": match, "max_abs_diff": worst},
           "steps": steps}
    with open(a.output, "w") as f:
        json.dump(res, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
