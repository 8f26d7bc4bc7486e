#!/usr/bin/python3
"""replay_torch.py — run a plan's schedule with the model's own operators.

    tools/replay_torch.py GRAPH PLAN -o MEASURED.json [--device auto|cpu|cuda] [--no-cudnn]

GRAPH is a joint graph written by tools/export_torch.py; its "recipe" (model,
batch, input shape, dtype, seed) rebuilds the model and its inputs, and a new
aot_function trace of the same recipe (fake tensors) gives back the ATen
operator of every node (node ids are the trace's names; tools/torch_joint.py).
The schedule then runs for real, compiled by tools/remat_torch.py as training
with the plan runs it (remat_torch.Program): each step runs its node's
operator on the values in memory (views are made again from their base
wherever read), a node that appears again is recomputed, and every value is
dropped after its last read before it is produced again (the spec's
semantics; outputs are kept to the end).

Measured at every step, after the operator ran and before anything is
freed: on the CPU the bytes of every live tensor storage (values held,
parameters, buffers, inputs, and the outputs an operator returned that the
step drops at once), on CUDA torch.cuda.max_memory_allocated over
the step (reset before it), which includes the caching allocator's rounding
and any workspace the operator takes. Random operators (dropout, stochastic
depth) are seeded before every run from the node's position among them, so
a recomputation draws the same mask; the reference step (plain autograd on a
model built from the same recipe) is seeded the same way, call by call.
The parameter gradients the schedule produced are compared with the
reference's. Writes the remat-replay document (docs/replay.md) with
"gradients": {"match", "max_abs_diff"} and "held_peak", what every run of
the schedule holds (remat_torch.Schedule.held; above simulated_peak only
where a forward operator runs again for its further outputs alone).

--device auto (the default) uses CUDA when torch sees a GPU, else the CPU.
Runs on Debian's python3 with python3-torch and python3-torchvision.
"""
import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from need_torch import need_torch  # noqa: E402
need_torch("replay_torch")
import torch  # noqa: E402
import torch_joint  # noqa: E402
import remat_torch  # noqa: E402

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


def build(recipe, device):
    """(model, example inputs) of the recipe, on device."""
    dtype = getattr(torch, recipe.get("dtype", "float32"))
    model, example = torch_joint.load_model(recipe["model"], int(recipe["batch"]),
                                            recipe.get("input_shape"), dtype,
                                            int(recipe.get("seed", 0)),
                                            recipe.get("model_args"))
    model.to(device)
    return model, tuple(x.to(device) for x in example)


def reference_grads(recipe, device, seed_base):
    """Parameter gradients of one plain autograd step on a model built from
    the same recipe, random operators seeded call by call as the plan's."""
    model, example = build(recipe, device)
    loss = remat_torch.eager_step(model, example, seed_base, device)
    loss.backward()
    return {"param:" + n: p.grad for n, p in model.named_parameters()}, float(loss.detach())


class Probe:
    """The replay's measurement at every step, after the operator ran and
    before anything is freed: on the CPU the bytes of every live tensor
    storage (the program's values, the resident primals and constants,
    what the step returned and drops at once); on CUDA
    torch.cuda.max_memory_allocated over the step (reset as it begins, once
    what the step before freed is gone) and memory_reserved as rss, each
    less what was allocated before the run that is no value of the graph
    (outside). Also each step's wall time."""

    def __init__(self, cuda, resident):
        self.cuda, self.resident = cuda, resident
        self.measured, self.rss, self.times = [], [], []
        self.last = None
        self.outside = 0  # CUDA: bytes allocated before the run that are no value of the graph

    def __call__(self, t, local):
        if self.cuda:
            torch.cuda.synchronize()
        if t is None:  # a step begins (what the one before freed is gone)
            if self.cuda:
                torch.cuda.reset_peak_memory_stats()
            self.last = time.perf_counter()
            return
        self.times.append(time.perf_counter() - self.last)
        if self.cuda:
            self.measured.append(torch.cuda.max_memory_allocated() - self.outside)
            self.rss.append(torch.cuda.memory_reserved() - self.outside)
        else:
            acc = {}
            for k, x in local.items():
                if k not in ("G", "B", "P"):  # the loss gradient is no value of the graph
                    remat_torch.storages(x, acc)
            remat_torch.storages(self.resident, acc)
            self.measured.append(sum(acc.values()))
            self.rss.append(0)  # torch and the trace share the process's resident set
        local.clear()  # the frame's own dict before Python 3.13: it would keep the values alive


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("plan")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--no-reseed", action="store_true",
                    help="draw random operators from the running generator (a recomputed "
                         "dropout then draws another mask: what the gradient check catches)")
    ap.add_argument("--no-cudnn", action="store_true",
                    help="CUDA: ATen's own kernels for the schedule and the reference alike "
                         "(eager runs cuDNN's batch norm, the schedule ATen's native one)")
    a = ap.parse_args()
    if a.no_cudnn:
        torch.backends.cudnn.enabled = False

    try:
        doc = remat_torch.load_json(a.graph, "remat-graph")
        plan = remat_torch.load_json(a.plan, "remat-plan")
        recipe = doc.get("recipe") if isinstance(doc, dict) else None
        if not isinstance(recipe, dict) or "model" not in recipe or "batch" not in recipe:
            raise remat_torch.PlanRefused(
                "%s: no recipe: the torch replay needs a joint graph written by "
                "tools/export_torch.py (its $.recipe rebuilds the model)" % a.graph)
        sched = remat_torch.check_plan(doc, plan, a.graph, a.plan)
    except remat_torch.PlanRefused as ex:
        fail(str(ex))
    if a.device == "cuda" and not torch.cuda.is_available():
        fail("no CUDA device visible to torch")
    cuda = a.device == "cuda" or (a.device == "auto" and torch.cuda.is_available())
    dev = torch.device("cuda" if cuda else "cpu")
    remat_torch.exact_fp32(dev)

    try:
        model, example = build(recipe, dev)
        gm, names, joint = remat_torch.trace(model, example)
    except torch_joint.Refused as ex:
        fail("cannot rebuild the recipe's model %s: %s" % (recipe["model"], ex))
    seed_base = 1000003 * (int(recipe.get("seed", 0)) + 1)
    R = torch_joint.primal_values(model, example)
    try:
        remat_torch.check_trace(doc, joint, a.graph)
        probe = Probe(cuda, R)
        prog = remat_torch.Program(gm, names, joint, sched, dev, reseed=not a.no_reseed,
                                   probe=probe)
    except remat_torch.PlanRefused as ex:
        fail(str(ex))
    probe.resident = R + [v for k, v in prog.fwd.__globals__.items() if k.startswith("k_")]
    if cuda:
        probe.outside = remat_torch.cuda_outside(dev, probe.resident)

    t_start = time.perf_counter()
    try:
        with torch.no_grad():
            loss, saved = prog.fwd(list(R), seed_base)
            grads = prog.bwd(list(R), saved, torch.ones_like(loss), seed_base)
    except Exception as ex:  # an operator failing is one line, not a traceback
        where = prog.step_of(ex)
        first = (str(ex).strip().splitlines() or [type(ex).__name__])[0]
        if where is None:
            fail(first)
        t, v = where
        target = next(n.target for n in gm.graph.nodes if n.name == v)
        fail("step %d (%s, %s): %s" % (t, v, target, first))
    seconds = time.perf_counter() - t_start
    del loss, saved
    grads = {name: g for name, g in zip(names, grads) if name.startswith("param:")}

    # the gradients the schedule produced, against plain autograd's
    ref, _ = reference_grads(recipe, dev, seed_base)
    worst, match, worst_at = 0.0, True, None
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
        own = float(r.abs().max()) if r.numel() else 0.0
        if worst_at is None or d > worst:
            worst, worst_at = d, {"parameter": name, "abs_diff": d, "largest": own,
                                  "largest_of_all": big}
        if d > GRAD_RTOL * own + GRAD_GTOL * big:
            match = False
    if cuda:
        device = "%s (%s, torch %s)" % (dev, torch.cuda.get_device_name(dev), torch.__version__)
    else:
        device = "cpu (torch %s, %d threads), live tensor storages" % (torch.__version__,
                                                                        torch.get_num_threads())
    steps = []
    costs = []
    for t, (v, _) in enumerate(sched.steps):
        steps.append({"node": v, "simulated": sched.sim[t], "measured": probe.measured[t],
                      "rss": probe.rss[t], "time_s": probe.times[t]})
        costs.append(float(sched.nodes[v].get("cost", 1)))
    res = {"format": "remat-replay", "version": 1, "graph": doc.get("name", ""),
           "solver": plan.get("solver", ""), "backend": "torch", "device": device, "scale": 1,
           "measured_peak": max(probe.measured, default=0), "simulated_peak": sched.peak,
           "held_peak": max(sched.held(prog.transients), default=sched.peak),
           "rss_peak": max(probe.rss, default=0), "outside_bytes": probe.outside,
           "time_cost_correlation": pearson(probe.times, costs),
           "seconds": round(seconds, 6),
           "gradients": {"match": match, "max_abs_diff": worst, "worst": worst_at},
           "steps": steps}
    with open(a.output, "w") as f:
        json.dump(res, f, separators=(",", ":"))
        f.write("\n")
    if not match and worst_at:
        print("replay_torch: the largest difference: %s by %.3g (its largest gradient %.3g, every "
              "parameter's %.3g)" % (worst_at["parameter"], worst, worst_at["largest"], big),
              file=sys.stderr)


if __name__ == "__main__":
    main()
