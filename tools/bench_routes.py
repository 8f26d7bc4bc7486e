#!/usr/bin/python3
"""bench_routes.py — how fast each way of running a plan is, beside eager.

    tools/bench_routes.py GRAPH PLAN [--steps N] [--device cpu|cuda]

One training step (forward and backward, no optimizer) of the graph's recipe
model, the median of N (default 10) after one warm-up, by four routes:

  eager       plain autograd (the model's forward, loss.backward())
  generated   remat_torch.PlannedModule: the schedule as straight-line Python
              (the route training uses)
  interpret   the same statements run one by one from a table with the values
              in a dict, as an interpreter of the schedule would (the torch
              replay's former loop)
  aot         functorch's aot_function with its default partition: the
              joint graph's forward and backward as FX-generated code under
              aot's own autograd.Function, the runtime an aot_module route
              with a partition built from the plan would have (it runs the
              graph's own order: no recomputation)

Prints one line per route: seconds per step and the ratio to eager.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from need_torch import need_torch  # noqa: E402
need_torch("bench_routes")
import torch  # noqa: E402
import torch_joint  # noqa: E402
import remat_torch  # noqa: E402
from functorch.compile import aot_function, default_partition  # noqa: E402
from torch.nn.utils.stateless import functional_call  # noqa: E402


def build(recipe, dev):
    dtype = getattr(torch, recipe.get("dtype", "float32"))
    m, ex = torch_joint.load_model(recipe["model"], int(recipe["batch"]), recipe.get("input_shape"),
                                   dtype, int(recipe.get("seed", 0)), recipe.get("model_args"))
    m.to(dev)
    return m, tuple(x.to(dev) for x in ex)


def timeit(fn, params, steps, dev):
    ts = []
    for i in range(steps + 1):
        for p in params:
            p.grad = None
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        t0 = time.perf_counter()
        fn()
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        if i:
            ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def interpreter(prog):
    """fwd and bwd of prog run statement by statement with a dict of values."""
    lines = prog.source.splitlines()
    cut = lines.index("def bwd(R, S, G, B):")
    fwd = [compile(x.strip(), "<step>", "exec") for x in lines[1:cut] if x.strip()
           and not x.strip().startswith("return")]
    bwd = [compile(x.strip(), "<step>", "exec") for x in lines[cut + 1:] if x.strip()
           and not x.strip().startswith("return") and not x.strip().startswith("S.clear")
           and "= S" not in x]
    fret = [x.strip()[7:] for x in lines[1:cut] if x.strip().startswith("return")][0]
    bret = [x.strip()[7:] for x in lines[cut + 1:] if x.strip().startswith("return")][0]
    saved = [x.strip() for x in lines[cut + 1:] if "= S" in x][0].split("=")[0]
    env = prog.fwd.__globals__

    def run_fwd(R, B):
        ns = {"R": R, "B": B}
        for c in fwd:
            exec(c, env, ns)
        return eval(fret, env, ns)

    def run_bwd(R, S, G, B):
        ns = {"R": R, "G": G, "B": B}
        for name, v in zip([x.strip() for x in saved.split(",") if x.strip()], S):
            ns[name] = v
        S.clear()
        for c in bwd:
            exec(c, env, ns)
        return eval(bret, env, ns)
    return run_fwd, run_bwd


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("plan")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    a = ap.parse_args()
    dev = torch.device(a.device)
    doc = remat_torch.load_json(a.graph, "remat-graph")
    recipe = doc["recipe"]
    rows = []

    m, ex = build(recipe, dev)
    params = list(m.parameters())
    rows.append(("eager", timeit(lambda: torch_joint.loss_of(m(*ex)).backward(), params,
                                 a.steps, dev)))

    m, ex = build(recipe, dev)
    params = list(m.parameters())
    step = remat_torch.PlannedModule(m, a.graph, a.plan, device=dev)
    rows.append(("generated", timeit(lambda: step(*ex).backward(), params, a.steps, dev)))

    prog = step.program
    fwd, bwd = prog.fwd, prog.bwd
    prog.fwd, prog.bwd = interpreter(prog)
    rows.append(("interpret", timeit(lambda: step(*ex).backward(), params, a.steps, dev)))
    prog.fwd, prog.bwd = fwd, bwd

    m, ex = build(recipe, dev)
    pn = [n for n, _ in m.named_parameters()]
    bn = [n for n, _ in m.named_buffers()]

    def flat(*xs):
        state = dict(zip(pn, xs[:len(pn)]))
        state.update(zip(bn, xs[len(pn):len(pn) + len(bn)]))
        return (torch_joint.loss_of(functional_call(m, state, tuple(xs[len(pn) + len(bn):]))),)
    compiled = aot_function(flat, lambda g, _: g, lambda g, _: g, partition_fn=default_partition)
    primals = torch_joint.primal_values(m, ex)
    params = list(m.parameters())
    rows.append(("aot", timeit(lambda: compiled(*primals)[0].backward(), params, a.steps, dev)))

    eager = rows[0][1]
    print("%s, %d schedule steps, %s, %d threads" % (doc.get("name"), len(step.schedule.steps),
                                                     dev, torch.get_num_threads()))
    for name, t in rows:
        print("%-10s %.5f s/step  %.2fx eager" % (name, t, t / eager))


if __name__ == "__main__":
    main()
