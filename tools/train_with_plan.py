#!/usr/bin/python3
"""train_with_plan.py — N steps of SGD with a plan, beside plain autograd.

    tools/train_with_plan.py GRAPH PLAN --steps N [--lr 0.001] [--device auto|cpu|cuda]
                             [--data random|fixed] [--no-eager] [--no-cudnn] -o REPORT.json

GRAPH is a joint graph written by tools/export_torch.py, PLAN a plan for it
(`remat solve GRAPH --budget 50% -o PLAN`). The model is built from the
graph's recipe twice with the same parameters: one copy trains through
remat_torch.PlannedModule (the plan's schedule with the model's own ATen
operators), the other with plain autograd, both with torch.optim.SGD on the
same batches (--data random: a new batch each step from a generator seeded
by the recipe; fixed: the recipe's example every step) and the same dropout
masks (the eager step is reseeded as the planned one seeds its random
operators). Each step starts the eager copy from the planned model's
parameters and buffers (lockstep), so that a loss compares one step and not
a trajectory: the loss, the sum of the outputs, has no minimum, and
float32's differences grow as training on it diverges. On CUDA both run
without TF32 (remat_torch.exact_fp32). This file is also the example of the
API: see Run below.

Writes REPORT.json:
  {"format": "remat-train", "version": 1, "graph", "solver", "device",
   "steps": [{"loss", "loss_eager", "seconds", "seconds_eager"}, ...],
   "losses_match", "max_loss_rel_diff", "buffers_match", "max_buffer_abs_diff",
   "measured_peak", "simulated_peak", "peak_rel_diff",
   "seconds_per_step", "seconds_per_step_eager", "time_increase",
   "predicted_cost_increase", "cost_unit", "nodes", "schedule_steps"}
measured_peak: on the CPU the largest number of bytes of live tensor storages
after any ATen operator of the first step (remat_torch.LiveBytes: parameters,
buffers, inputs, every value and gradient alive); on CUDA
torch.cuda.max_memory_allocated over the first step (reset before it) less
what was allocated before it that is not this model's (the other runs'
models, the batches, the matrix libraries' workspaces:
remat_torch.cuda_outside). The
first step is measured, the others timed (seconds_per_step is their median;
the eager reference the same), so the measurement does not slow the timing.
predicted_cost_increase is the plan's cost over the graph's own order run
once, minus 1 (in the graph's cost unit: FLOP estimates, measured
microseconds or unit costs). held_peak is what every run of the schedule
holds (remat_torch.Schedule.held): the simulated peak, unless the plan runs
a forward operator again for its further outputs alone (its other outputs
exist while it runs). buffers_match: every buffer (batch norm's running
statistics, num_batches_tracked) after every step equals the eager model's
(floating ones within 1e-4 of their largest magnitude, at least 1e-4).
Exit status 1 when a loss differs from the eager one by more than the
float32 tolerance (relative 1e-4), a buffer differs, or the measured
peak is more than 5 % from the held one; 2 on a refused graph or plan.
"""
import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from need_torch import need_torch  # noqa: E402
need_torch("train_with_plan")
import torch  # noqa: E402
import torch_joint  # noqa: E402
import remat_torch  # noqa: E402

LOSS_RTOL = 1e-4
PEAK_TOL = 0.05


def build(recipe):
    """(model, example inputs, parsed input shape) from a graph's recipe."""
    dtype = getattr(torch, recipe.get("dtype", "float32"))
    return torch_joint.load_model(recipe["model"], int(recipe["batch"]), recipe.get("input_shape"),
                                  dtype, int(recipe.get("seed", 0)), recipe.get("model_args"),
                                  with_shape=True)


def batches(recipe, shape, example, n, mode, device):
    """n batches: new random ones from a generator seeded by the recipe, or
    the example n times."""
    g = torch.Generator().manual_seed(int(recipe.get("seed", 0)) + 2)
    dtype = getattr(torch, recipe.get("dtype", "float32"))
    out = []
    for _ in range(n):
        x = example if mode == "fixed" else torch_joint.make_inputs(shape, int(recipe["batch"]),
                                                                    dtype, g)
        out.append(tuple(t.to(device) for t in x))
    return out


def sync(device):
    if device.type == "cuda":
        torch.cuda.synchronize(device)


class Run:
    """One training run in the ordinary loop: zero the gradients (to None),
    loss = step(*x, seed), backward, optimizer step. Keeps each step's loss
    and seconds, and the peak of the first step when measure is the model
    (its parameters, buffers and the batch are resident)."""

    def __init__(self, step, model, lr, device, measure=False):
        self.step, self.model, self.device, self.measure = step, model, device, measure
        self.params = list(model.parameters())
        self.opt = torch.optim.SGD(self.params, lr=lr)
        self.losses, self.secs, self.peak = [], [], None

    def __call__(self, i, x, seed):
        self.opt.zero_grad(set_to_none=True)
        sync(self.device)
        t0 = time.perf_counter()
        if self.measure and i == 0:
            if self.device.type == "cuda":
                # the other runs' models, the batches and the matrix
                # libraries' workspaces are allocated too: not this step's
                resident = self.params + list(self.model.buffers()) + list(x)
                outside = remat_torch.cuda_outside(self.device, resident)
                torch.cuda.reset_peak_memory_stats(self.device)
                loss = self.step(*x, seed=seed)
                loss.backward()
                sync(self.device)
                self.peak = torch.cuda.max_memory_allocated(self.device) - outside
            else:
                resident = self.params + list(self.model.buffers()) + list(x)
                with remat_torch.LiveBytes(resident) as live:
                    loss = self.step(*x, seed=seed)
                    loss.backward()
                self.peak = live.peak
        else:
            loss = self.step(*x, seed=seed)
            loss.backward()
        self.opt.step()
        sync(self.device)
        self.secs.append(time.perf_counter() - t0)
        self.losses.append(float(loss.detach()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("plan")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--data", default="random", choices=("random", "fixed"))
    ap.add_argument("--seed", type=int, default=0, help="torch.manual_seed before each run")
    ap.add_argument("--no-eager", action="store_true", help="skip the plain autograd reference")
    ap.add_argument("--no-cudnn", action="store_true",
                    help="CUDA: ATen's own kernels for both runs (eager runs cuDNN's batch norm, "
                         "the plan ATen's native one)")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if a.steps < 1:
        ap.error("--steps must be at least 1")
    if a.no_cudnn:
        torch.backends.cudnn.enabled = False
    if a.device == "cuda" and not torch.cuda.is_available():
        sys.exit("train_with_plan: no CUDA device visible to torch")
    dev = torch.device("cuda" if a.device == "cuda" or
                       (a.device == "auto" and torch.cuda.is_available()) else "cpu")
    remat_torch.exact_fp32(dev)
    try:
        doc = remat_torch.load_json(a.graph, "remat-graph")
        plan = remat_torch.load_json(a.plan, "remat-plan")
        recipe = doc.get("recipe") if isinstance(doc, dict) else None
        if not isinstance(recipe, dict) or "model" not in recipe or "batch" not in recipe:
            raise remat_torch.PlanRefused("%s: no recipe: training needs a joint graph written "
                                          "by tools/export_torch.py" % a.graph)
        model, example, shape = build(recipe)
        model.to(dev)
        t0 = time.perf_counter()
        step = remat_torch.PlannedModule(model, a.graph, a.plan, device=dev)
        setup = time.perf_counter() - t0
    except remat_torch.PlanRefused as ex:
        print("train_with_plan: %s" % ex, file=sys.stderr)
        sys.exit(2)
    except torch_joint.Refused as ex:
        print("train_with_plan: cannot build the recipe's model: %s" % ex, file=sys.stderr)
        sys.exit(2)
    data = batches(recipe, shape, example, a.steps, a.data, dev)
    random_ops = step.program.random > 0
    held_peak = step.held_peak

    # the runs take their steps in turn, so that a busy machine slows each alike
    runs = [Run(step, model, a.lr, dev, measure=True)]
    if not a.no_eager:
        eager, _, _ = build(recipe)
        eager.to(dev)
        runs.append(Run(lambda *x, seed: remat_torch.eager_step(eager, x, seed, dev), eager,
                        a.lr, dev))
        if random_ops:
            # the reseeding mode slows every operator: time plain eager steps
            plain, _, _ = build(recipe)
            plain.to(dev)
            runs.append(Run(lambda *x, seed: torch_joint.loss_of(plain(*x)), plain, a.lr, dev))
    # lockstep: every step starts the other runs from the planned model's
    # parameters and buffers, so that a loss or buffer compares one step and
    # not a trajectory (the sum of the outputs has no minimum: resnet50's
    # loss reached -1e15 in 6 steps, and float32's differences grow with it)
    state = model.state_dict()
    buf_worst, buf_match = 0.0, None if a.no_eager else True
    torch.manual_seed(a.seed)
    for i, x in enumerate(data):
        seed = remat_torch.step_seed()
        for r in runs[1:]:
            r.model.load_state_dict(state)
        for r in runs:
            r(i, x, seed)
        if a.no_eager:
            continue
        # the buffers after the step (batch norm's running statistics and
        # step count): a plan that ran a batch norm again must not have
        # updated them twice
        for (name, b), (_, be) in zip(model.named_buffers(), runs[1].model.named_buffers()):
            if b.dtype.is_floating_point:
                d = float((b - be).abs().max()) if b.numel() else 0.0
                buf_worst = max(buf_worst, d)
                if d > LOSS_RTOL * max(float(be.abs().max()) if be.numel() else 0.0, 1.0):
                    buf_match = False
            elif not torch.equal(b, be):
                buf_match = False
    losses, secs, peak = runs[0].losses, runs[0].secs, runs[0].peak
    rows = [{"loss": l, "seconds": round(s, 6)} for l, s in zip(losses, secs)]
    worst, match = 0.0, True
    secs_e = []
    if not a.no_eager:
        secs_e = runs[-1].secs
        for r, le, se in zip(rows, runs[1].losses, secs_e):
            r["loss_eager"] = le
            r["seconds_eager"] = round(se, 6)
            d = abs(r["loss"] - le) / max(abs(le), 1e-30)
            worst = max(worst, d)
            if d > LOSS_RTOL:
                match = False

    def per_step(s):
        rest = s[1:] if len(s) > 1 else s
        return statistics.median(rest) if rest else None
    sched = remat_torch.check_plan(doc, plan)
    base_cost = sum(float(d.get("cost", 1)) for d in doc["nodes"] if d.get("phase") != "input")
    sps, spe = per_step(secs), per_step(secs_e)
    if dev.type == "cuda":
        device = "%s (%s, torch %s), torch.cuda.max_memory_allocated" % (
            dev, torch.cuda.get_device_name(dev), torch.__version__)
    else:
        device = "cpu (torch %s, %d threads), live tensor storages" % (torch.__version__,
                                                                        torch.get_num_threads())
    rel = (peak - sched.peak) / sched.peak if sched.peak else 0.0
    held_rel = (peak - held_peak) / held_peak if held_peak else 0.0
    rep = {"format": "remat-train", "version": 1, "graph": doc.get("name", ""),
           "solver": plan.get("solver", ""), "device": device, "lr": a.lr, "data": a.data,
           "steps": rows, "losses_match": match if not a.no_eager else None,
           "buffers_match": buf_match, "max_buffer_abs_diff": buf_worst,
           "max_loss_rel_diff": worst if not a.no_eager else None,
           "measured_peak": peak, "simulated_peak": sched.peak, "peak_rel_diff": rel,
           "held_peak": held_peak, "held_rel_diff": held_rel,
           "seconds_per_step": sps, "seconds_per_step_eager": spe,
           "time_increase": (sps / spe - 1) if sps and spe else None,
           "predicted_cost_increase": sched.cost / base_cost - 1 if base_cost else None,
           "cost_unit": (doc.get("units") or {}).get("cost", "flop"),
           "nodes": len(doc["nodes"]), "schedule_steps": len(sched.steps),
           "setup_seconds": round(setup, 3)}
    with open(a.output, "w") as f:
        json.dump(rep, f, indent=1)
        f.write("\n")
    print("losses    %s over %d steps (largest relative difference %.2g)" % (
        "equal to plain autograd's" if match else "DIFFER from plain autograd's", a.steps, worst)
        if not a.no_eager else "losses    (no eager reference)")
    if buf_match is not None and any(True for _ in model.buffers()):
        print("buffers   %s after each of %d steps (largest absolute difference %.2g)" % (
            "equal to plain autograd's" if buf_match else "DIFFER from plain autograd's",
            a.steps, buf_worst))
    print("peak      measured %d vs simulated %d bytes (%+.2f%%)" % (peak, sched.peak, 100 * rel))
    if held_peak != sched.peak:
        why = "a forward operator runs again for its further outputs alone"
        print("held      every run of this schedule holds %d bytes at its peak (%+.2f%% over the "
              "graph; measured %+.2f%% of it): %s" % (
                  held_peak, 100.0 * (held_peak - sched.peak) / sched.peak, 100 * held_rel, why))
    if sps and spe:
        print("time      %.4f s/step vs eager %.4f s/step (%+.1f%%); predicted cost %+.1f%%" % (
            sps, spe, 100 * (sps / spe - 1), 100 * rep["predicted_cost_increase"]))
    sys.exit(0 if match and buf_match is not False and abs(held_rel) <= PEAK_TOL else 1)


if __name__ == "__main__":
    main()
