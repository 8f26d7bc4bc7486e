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
from functorch.compile import aot_function, default_partition, make_boxed_func  # noqa: E402
from torch.nn.utils.stateless import functional_call  # noqa: E402


def build(recipe, dev):
    dtype = getattr(torch, recipe.get("dtype", "float32"))
    m, ex = torch_joint.load_model(recipe["model"], int(recipe["batch"]), recipe.get("input_shape"),
                                   dtype, int(recipe.get("seed", 0)), recipe.get("model_args"))
    m.to(dev)
    return m, tuple(x.to(dev) for x in ex)


def timeit(routes, steps, dev):
    """Median seconds per step of each (name, step function, parameters),
    the routes taking their steps in turn (a busy machine slows each alike);
    the first round is a warm-up."""
    ts = {name: [] for name, _, _ in routes}
    for i in range(steps + 1):
        for name, fn, params in routes:
            for p in params:
                p.grad = None
            if dev.type == "cuda":
                torch.cuda.synchronize(dev)
            t0 = time.perf_counter()
            fn()
            if dev.type == "cuda":
                torch.cuda.synchronize(dev)
            if i:
                ts[name].append(time.perf_counter() - t0)
    return [(name, statistics.median(ts[name])) for name, _, _ in routes]


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
    routes = []

    m0, ex0 = build(recipe, dev)
    routes.append(("eager", lambda: torch_joint.loss_of(m0(*ex0)).backward(),
                   list(m0.parameters())))

    m1, ex1 = build(recipe, dev)
    step = remat_torch.PlannedModule(m1, a.graph, a.plan, device=dev)
    routes.append(("generated", lambda: step(*ex1).backward(), list(m1.parameters())))

    # the same program, its statements run one by one (a second module, same code)
    m2, ex2 = build(recipe, dev)
    step2 = remat_torch.PlannedModule(m2, a.graph, a.plan, device=dev)
    step2.program.fwd, step2.program.bwd = interpreter(step2.program)
    routes.append(("interpret", lambda: step2(*ex2).backward(), list(m2.parameters())))

    m3, ex3 = build(recipe, dev)
    pn = [n for n, _ in m3.named_parameters()]
    bn = [n for n, _ in m3.named_buffers()]

    def flat(*xs):
        state = dict(zip(pn, xs[:len(pn)]))
        state.update(zip(bn, xs[len(pn):len(pn) + len(bn)]))
        return (torch_joint.loss_of(functional_call(m3, state, tuple(xs[len(pn) + len(bn):]))),)
    compiled = aot_function(flat, lambda g, _: make_boxed_func(g), lambda g, _: make_boxed_func(g),
                            partition_fn=default_partition)
    primals = torch_joint.primal_values(m3, ex3)
    routes.append(("aot", lambda: compiled(*primals)[0].backward(), list(m3.parameters())))
    rows = timeit(routes, a.steps, dev)

    eager = rows[0][1]
    print("%s, %d schedule steps, %s, %d threads" % (doc.get("name"), len(step.schedule.steps),
                                                     dev, torch.get_num_threads()))
    for name, t in rows:
        print("%-10s %.5f s/step  %.2fx eager" % (name, t, t / eager))


if __name__ == "__main__":
    main()
