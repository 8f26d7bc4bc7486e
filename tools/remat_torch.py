"""remat_torch.py — train a PyTorch model with a rematerialization plan.

    import remat_torch
    step = remat_torch.PlannedModule(model, "graph.json", "plan.json")
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for batch in data:
        opt.zero_grad(set_to_none=True)
        loss = step(*batch)          # the plan's forward part
        loss.backward()              # the plan's backward part; .grad as autograd's
        opt.step()

GRAPH is a joint graph written by tools/export_torch.py for this model, PLAN a
plan for it (`remat solve GRAPH --budget 50% -o PLAN`). PlannedModule traces
the model again with fake tensors at the recipe's batch (tools/torch_joint.py:
no data, seconds), checks that the trace is the graph (node ids and sizes) and
that the plan is for this graph, and compiles the schedule into two
straight-line Python functions of the trace's ATen operators: the steps up to
the loss run in forward, the rest in backward (a torch.autograd.Function
between them). A node the schedule repeats is computed again; every value is
deleted after its last read before it is produced again, outputs (the
parameter gradients) are returned to autograd, which puts them in .grad. What
the forward part holds for the backward part is what the schedule holds
across the loss step. Random operators (dropout, stochastic depth) are seeded
from one number drawn per step from torch's generator and the operator's
position in the trace, under a saved and restored generator state, so a
recomputation draws the same mask and the global random stream advances by
one draw per step whatever the plan recomputes. A batch-norm operator run
again is given no running statistics (same outputs, no second update of the
running mean and variance); num_batches_tracked counts steps as in eager.

Refused, with a message saying which (PlanRefused): a plan made for another
graph (name, batch, or a schedule naming nodes the graph lacks, or whose
recorded peak this graph does not give), a model whose trace is not the graph
(another model, width or torch release), inputs of another batch or shape
than the recipe's.

The same module holds what the torch replay (tools/replay_torch.py) shares:
the hold intervals and simulated curve of a schedule (docs/semantics.md), the
graph-against-trace check, the reseeding dispatch mode, and the live-storage
measurement. Runs on Debian's python3 with python3-torch (torch 1.13), and on torch 2
(docs/models.md).
"""
import json
import operator
import os
import re
import sys
import weakref

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch_joint  # noqa: E402
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

aten = torch.ops.aten


class PlanRefused(Exception):
    """A graph, plan, model or input the planned step cannot run; str() is
    the one-line reason."""


# ---- documents ---------------------------------------------------------------

def load_json(path, what):
    """The JSON document at path, or PlanRefused naming the file."""
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as ex:
        raise PlanRefused("%s: %s" % (path, ex.strerror))
    except ValueError as ex:
        raise PlanRefused("%s: not a %s JSON document (%s)" % (path, what, ex))


def _doc(x, what):
    """(document, label) from a path or an already loaded dict."""
    if isinstance(x, dict):
        return x, x.get("name", what) if what == "remat-graph" else "the plan"
    return load_json(x, what), str(x)


# ---- the schedule's memory (spec section 3) ----------------------------------

def holds(sched, outputs):
    """For each step, the values to drop after it: a value produced at step
    p lives until its last read before it is produced again, or to the end
    for an output's last production (spec §3). Also the interval list
    (value, first, last) for the simulated curve. sched: [(id, inputs)]."""
    T = len(sched)
    last_read = {}
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
    return drop, intervals


def simulate(nodes, sched, intervals, input_bytes):
    """The simulated memory at every step (spec §3): inputs, the values held
    across the step, its own value and workspace. nodes: {id: node dict}."""
    T = len(sched)
    sim = [input_bytes + int(nodes[v].get("workspace", 0)) for v, _ in sched]
    diff = [0] * (T + 1)
    for v, p, e in intervals:
        diff[p] += int(nodes[v].get("size", 1))
        diff[e + 1] -= int(nodes[v].get("size", 1))
    run = 0
    for t in range(T):
        run += diff[t]
        sim[t] += run
    return sim


class Schedule:
    """A plan's schedule checked against its graph: steps [(id, inputs)],
    drops per step, the simulated curve and peak, the loss step."""

    def __init__(self, doc, plan, glabel="the graph", plabel="the plan"):
        if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
            raise PlanRefused("%s: not a remat-graph document" % glabel)
        if not isinstance(plan, dict) or not isinstance(plan.get("schedule"), list):
            raise PlanRefused("%s: $.schedule: missing or not an array" % plabel)
        self.nodes = {d["id"]: d for d in doc["nodes"]}
        self.outputs = set(doc.get("outputs") or [])
        self.input_bytes = sum(int(d.get("size", 1)) for d in doc["nodes"]
                               if d.get("phase") == "input")
        self.steps = []
        for t, v in enumerate(plan["schedule"]):
            if not isinstance(v, str) or v not in self.nodes or \
                    self.nodes[v].get("phase") == "input":
                raise PlanRefused("%s: schedule[%d]: '%s' is not a node the schedule may run%s"
                                  % (plabel, t, v, "" if v in self.nodes else
                                     " (no such node in %s: a plan for another graph?)" % glabel))
            self.steps.append((v, self.nodes[v].get("inputs", [])))
        self.drop, self.intervals = holds(self.steps, self.outputs)
        self.sim = simulate(self.nodes, self.steps, self.intervals, self.input_bytes)
        self.peak = max(self.sim) if self.sim else self.input_bytes
        self.cost = sum(float(self.nodes[v].get("cost", 1)) for v, _ in self.steps)

    def held(self, transients=None):
        """The memory every run of the schedule holds at each step: the
        simulated curve plus what a step allocates beyond its node
        (transients: {step: bytes}, Program.transients: a forward operator
        run again for its further outputs alone, whose other outputs exist
        while it runs)."""
        curve = list(self.sim)
        for t, b in (transients or {}).items():
            curve[t] += b
        return curve


_NAME = re.compile(r"^(.*)-b(\d+)$")


def check_plan(doc, plan, glabel="the graph", plabel="the plan"):
    """The plan's Schedule on this graph, or PlanRefused saying why the plan
    is for another graph: its recorded graph name (another batch when only
    the -bN suffix differs), a node the graph lacks, or a peak the schedule
    does not give here (same name, other sizes)."""
    want, have = plan.get("graph") if isinstance(plan, dict) else None, doc.get("name")
    if want and have and want != have:
        a, b = _NAME.match(want), _NAME.match(have)
        if a and b and a.group(1) == b.group(1):
            raise PlanRefused("%s was made for batch %s ('%s'); %s has batch %s ('%s'): solve "
                              "again for this graph" % (plabel, a.group(2), want, glabel,
                                                        b.group(2), have))
        raise PlanRefused("%s was made for graph '%s', not '%s' (%s)" % (plabel, want, have, glabel))
    s = Schedule(doc, plan, glabel, plabel)
    if isinstance(plan.get("peak"), (int, float)) and int(plan["peak"]) != s.peak:
        raise PlanRefused("%s records peak %d bytes, its schedule gives %d on %s: it was made "
                          "for another graph" % (plabel, int(plan["peak"]), s.peak, glabel))
    if not any(doc_phase(s.nodes, v) == "loss" for v, _ in s.steps):
        raise PlanRefused("%s: the schedule never computes the loss" % plabel)
    return s


def doc_phase(nodes, v):
    return nodes[v].get("phase", "fwd")


def check_trace(doc, joint, glabel):
    """PlanRefused naming the first node where the graph and a new trace
    (torch_joint.analyse) differ: ids, then sizes."""
    traced = {d["id"]: d for d in joint.nodes}
    for d in doc["nodes"]:
        i = d["id"]
        if i not in traced:
            raise PlanRefused("%s: node '%s' is not in the recipe's trace (the graph does not "
                              "match its recipe; export it again)" % (glabel, i))
        if int(d.get("size", 1)) != traced[i]["size"]:
            raise PlanRefused("%s: node '%s' has size %d, the recipe's trace %d bytes (the graph "
                              "does not match its recipe; export it again)"
                              % (glabel, i, int(d.get("size", 1)), traced[i]["size"]))
    ids = {d["id"] for d in doc["nodes"]}
    missing = [i for i in traced if i not in ids]
    if missing:
        raise PlanRefused("%s: the recipe's trace has node '%s', the graph has not (export it "
                          "again)" % (glabel, missing[0]))


# ---- random operators, devices, measurement ----------------------------------

class Reseed(TorchDispatchMode):
    """Reseeds the generators before each random operator call, the k-th
    call with base + k: an eager step draws what the plan's k-th random node
    draws, however often the plan reruns it. restore=True runs each such
    call under a saved and restored generator state (what PlannedModule
    does), so the global stream is left as it was."""

    def __init__(self, base, restore=False, device=None):
        super().__init__()
        self.base, self.k, self.restore, self.device = base, 0, restore, device

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if torch_joint.is_random(func):
            k = self.k
            self.k += 1
            if self.restore:
                return seeded_call(self.base + k, self.device, func, *args, **(kwargs or {}))
            torch.manual_seed(self.base + k)
        return func(*args, **(kwargs or {}))


def seeded_call(seed, device, func, /, *args, **kwargs):
    """func(*args, **kwargs) with the generators seeded to `seed`, their
    states put back afterwards."""
    # the CPU generator directly: torch.manual_seed also queues a CUDA
    # reseed (with a stack trace, milliseconds) when CUDA is not started
    cpu = torch.default_generator
    state = cpu.get_state()
    cuda = device if device is not None and device.type == "cuda" else None
    if cuda is not None:
        cstate = torch.cuda.get_rng_state(cuda)
        torch.cuda.default_generators[cuda.index or 0].manual_seed(seed)
    cpu.manual_seed(seed)
    try:
        return func(*args, **kwargs)
    finally:
        cpu.set_state(state)
        if cuda is not None:
            torch.cuda.set_rng_state(cstate, cuda)


def step_seed():
    """One draw from torch's global generator: the base of a step's seeds."""
    return int(torch.randint(0, 2 ** 40, ()))


def storages(x, acc):
    """acc[storage identity] = bytes for every tensor in x (nested lists)."""
    if isinstance(x, torch.Tensor):
        p, nb = torch_joint.storage_of(x)
        acc[p] = nb
    elif isinstance(x, (tuple, list)):
        for e in x:
            storages(e, acc)


def warm_cuda(device):
    """Run the matrix products whose libraries keep memory for the process
    (cuBLAS and cuBLASLt make a workspace per stream at their first call,
    33 MiB on an H200 with torch 2.11, through torch's caching allocator), so
    that a measurement taken after this does not count them in the first
    step that multiplies."""
    a = torch.ones(16, 16, device=device)
    for x in (a, a.half(), a.bfloat16()):
        # and backward, whose products run on autograd's own thread (cuBLAS
        # keeps a handle, so a workspace, per thread)
        x = x.detach().requires_grad_()
        (torch.mm(x, x) + torch.addmm(x[0], x, x) + torch.bmm(x[None], x[None])[0]).sum().backward()
    torch.cuda.synchronize(device)


def exact_fp32(device):
    """float32 products as float32 on CUDA: torch lets cuDNN's convolutions
    (and may let matrix products) round their inputs to TF32's 10-bit
    mantissa, about 1e-3 of a value, so that a schedule's gradients and
    autograd's would differ by far more than summation order. The checks
    (the torch replay, training beside eager) compare them."""
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False


def cuda_outside(device, resident):
    """Bytes torch's caching allocator holds on device that are no value of
    the graph: memory_allocated less the storages of resident (the
    parameters, buffers, inputs and constants the graph counts), after
    warm_cuda. What earlier work left stays allocated (other models, the
    matrix libraries' workspaces) and max_memory_allocated counts it."""
    warm_cuda(device)
    acc = {}
    storages(list(resident), acc)
    return torch.cuda.memory_allocated(device) - sum(acc.values())


def to_device(x, dev):
    """x with every torch.device in it (factory operators' arguments)
    replaced by dev."""
    if isinstance(x, torch.device):
        return dev
    if isinstance(x, (list, tuple)):
        return type(x)(to_device(e, dev) for e in x)
    if isinstance(x, dict):
        return {k: to_device(v, dev) for k, v in x.items()}
    return x


class LiveBytes(TorchDispatchMode):
    """Bytes of live tensor storages, sampled after every ATen operator
    that runs under it (CPU): every tensor an operator returns is counted
    until its last Python or C++ reference dies (a weakref finalizer), once
    per storage however many views share it. resident: tensors alive
    before (parameters, buffers, inputs). peak is the largest sample."""

    def __init__(self, resident=()):
        super().__init__()
        self.count, self.bytes, self.live, self.peak = {}, {}, 0, 0
        for t in resident:
            self._track(t)
        self.peak = self.live

    def _track(self, t):
        key, nb = torch_joint.storage_of(t)
        if nb == 0:
            return
        c = self.count.get(key, 0)
        if c == 0:
            self.bytes[key] = nb
            self.live += nb
        self.count[key] = c + 1
        weakref.finalize(t, self._gone, key)

    def _gone(self, key):
        c = self.count[key] - 1
        if c:
            self.count[key] = c
        else:
            del self.count[key]
            self.live -= self.bytes.pop(key)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in tree_flatten(out)[0]:
            if isinstance(t, torch.Tensor):
                self._track(t)
        if self.live > self.peak:
            self.peak = self.live
        return out


# ---- tracing a model as the graph was made -------------------------------------

def recipe_example(recipe):
    """The recipe's example inputs as meta tensors (shapes and dtypes)."""
    dtype = getattr(torch, recipe.get("dtype", "float32"))
    _, example = torch_joint.load_model(recipe["model"], int(recipe["batch"]),
                                        recipe.get("input_shape"), dtype,
                                        int(recipe.get("seed", 0)), recipe.get("model_args"),
                                        fake=True)
    return tuple(example)


def trace(model, example):
    """(joint GraphModule, primal names, Joint) of one training step of
    model at the example's shapes, traced with fake tensors on the CPU
    (the exporter's operators whatever device the model is on)."""
    mode = torch_joint.fake_mode()
    vals = torch_joint.fake_values(mode, torch_joint.primal_values(model, example))
    gm, names = torch_joint.capture(model, example, mode, vals)
    return gm, names, torch_joint.analyse(gm, names, vals, mode=mode)


# ---- the schedule as code --------------------------------------------------------

class _Code:
    """Python source of one function being generated, and its globals."""

    def __init__(self, env):
        self.lines, self.env = [], env

    def const(self, x):
        if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
            return repr(x)
        if isinstance(x, float) and x == x and abs(x) != float("inf"):
            return repr(x)
        name = "c%d" % len(self.env)
        self.env[name] = x
        return name


class Program:
    """A schedule compiled for a joint trace: fwd(R, B) runs the steps up to
    and including the loss and returns (loss, values held for the rest);
    bwd(R, S, G, B) runs the rest and returns one gradient (or None) per
    primal. R: primal values (parameters, buffers, inputs) on the device,
    B: the step's seed base, G: the loss gradient. Values are deleted as
    the spec frees them (after the step of their last read before they are
    produced again). source holds the generated code; step_of(exc) the
    schedule step an exception was raised in.

    reseed=False: random operators draw from the running generator (a
    recomputed dropout then draws another mask). probe: called as
    probe(t, locals()) after step t ran, before anything is freed (the
    step's whole output is still held, further outputs it drops included),
    and probe(None, None) as each step begins, after what the step before
    freed is gone: the torch replay's measurement. The probe must clear
    the dict locals() gave it: before Python 3.13 that dict is the frame's
    own and keeps every value in it alive until the next call (a CUDA peak
    over the next step counted the values the step before had freed)."""

    def __init__(self, gm, names, joint, sched, device, reseed=True, probe=None):
        self.device = device
        self.names = names
        fx = {n.name: n for n in gm.graph.nodes}
        placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
        self.tangent = [n.name for n in placeholders if n.name.startswith("tangents")][0]
        primal_fx = [n.name for n in placeholders if not n.name.startswith("tangents")]
        resident = {name: "R[%d]" % i for i, name in enumerate(primal_fx)}
        env = {"torch": torch, "_keep": _keep, "_drop": _drop, "_seeded": seeded_call,
               "_bn_stats": _bn_stats, "_ln_stats": _ln_stats,
               "DEV": device, "P": probe}
        self.consts = []
        for n in gm.graph.nodes:
            if n.op == "get_attr":
                env["k_" + n.name] = getattr(gm, n.target).to(device)
                resident[n.name] = "k_" + n.name
        remat = {d["id"] for d in joint.nodes}
        random_fx = [n.name for n in gm.graph.nodes
                     if n.op == "call_function" and torch_joint.is_random(n.target)]
        seed_of = {name: k for k, name in enumerate(random_fx)}
        self.random = len(random_fx)
        merged_of = {}
        for gid, (op, ks) in joint.merged.items():
            for k in ks:
                merged_of[(op, k)] = gid
        loss_at = [t for t, (v, _) in enumerate(sched.steps)
                   if sched.nodes[v].get("phase") == "loss"][0]
        held, stash = {}, {}
        bn_ran = set()
        ops = {}

        def opref(target):
            if target not in ops:
                ops[target] = "f%d" % len(ops)
                # the operator's C++ entry point: OpOverload.__call__ is one
                # more Python frame per step
                env[ops[target]] = getattr(target, "_op", target)
            return ops[target]

        def ev(a, code, t):
            name = a.name
            if a.op == "call_function" and a.target is operator.getitem and \
                    (a.args[0].name, a.args[1]) in merged_of:
                g = merged_of[(a.args[0].name, a.args[1])]
                if g not in held:
                    raise PlanRefused("step %d (%s) reads '%s', which is not in memory"
                                      % (t, sched.steps[t][0], g))
                return "%s[%d]" % (held[g], a.args[1])
            if name in held:
                return held[name]
            if name in resident:
                return resident[name]
            if name == self.tangent:
                return "G"
            if name in remat:
                raise PlanRefused("step %d (%s) reads '%s', which is not in memory"
                                  % (t, sched.steps[t][0], name))
            return call(a, code, t)

        def arg(x, code, t):
            if isinstance(x, torch.fx.Node):
                return ev(x, code, t)
            if isinstance(x, torch.device):
                return "DEV"
            if isinstance(x, list):
                return "[" + ", ".join(arg(e, code, t) for e in x) + "]"
            if isinstance(x, tuple):
                return "(" + "".join(arg(e, code, t) + ", " for e in x) + ")"
            return code.const(x)

        def call(n, code, t, rerun=False, ks=None):
            """Code running operator node n; ks: the outputs to compute (a
            backward operator run by parts, through its output_mask)."""
            if n.target is operator.getitem:
                return "%s[%d]" % (arg(n.args[0], code, t), n.args[1])
            args, kwargs = list(n.args), dict(n.kwargs)
            if n.target is aten.native_batch_norm.default and (rerun or n.name in bn_ran):
                args[3] = args[4] = None  # run again: same outputs, no second update
            bn_ran.add(n.name)
            if ks is not None:
                args, kwargs = torch_joint.with_mask(n, args, kwargs, ks)
            parts = [arg(x, code, t) for x in args]
            parts += ["%s=%s" % (k, arg(x, code, t)) for k, x in kwargs.items()]
            if n.name in seed_of and reseed:
                return "_seeded(B + %d, DEV, %s, %s)" % (seed_of[n.name], opref(n.target),
                                                         ", ".join(parts))
            return "%s(%s)" % (opref(n.target), ", ".join(parts))

        def stats_only(o, ks):
            """A batch or layer norm whose statistics (float32) a step wants alone."""
            if list(ks) != [1, 2] or not isinstance(o.args[0], torch.fx.Node):
                return False
            m = o.args[0].meta.get("val", o.args[0].meta.get("tensor_meta"))
            if getattr(m, "dtype", None) != torch.float32:
                return False
            return o.target is aten.native_layer_norm.default or \
                (o.target is aten.native_batch_norm.default and o.args[5] is True)

        fwd, bwd = _Code(env), _Code(env)
        code = fwd
        self.line_step = {}
        self.transients = {}
        for t, (v, _) in enumerate(sched.steps):
            n = fx[v]
            var = "v%d" % t
            first = len(code.lines)
            after = []  # lines after the probe
            if probe is not None:
                code.lines.append("P(None, None)")  # the step begins: what it frees is gone
            if v in joint.merged and joint.merged[v][0] in joint.split:
                # a backward operator's further outputs: its run computing
                # them alone (output_mask), whatever ran before
                op, ks = joint.merged[v]
                code.lines.append("%s = _keep(%s, %r)" % (var, call(fx[op], code, t, ks=ks), ks))
            elif v in joint.merged:
                op, ks = joint.merged[v]
                if v in stash:
                    sv = stash.pop(v)
                    code.lines.append("%s = %s" % (var, sv))
                    code.lines.append("del " + sv)
                elif stats_only(fx[op], ks):
                    # not the run just before: batch or layer statistics alone
                    # (the graph counts no output of the operator here)
                    o = fx[op]
                    if o.target is aten.native_batch_norm.default:
                        code.lines.append("%s = _bn_stats(%s, %s)" % (
                            var, arg(o.args[0], code, t), arg(o.args[7], code, t)))
                    else:
                        code.lines.append("%s = _ln_stats(%s, %s, %s)" % (
                            var, arg(o.args[0], code, t), arg(o.args[1], code, t),
                            arg(o.args[4], code, t)))
                elif probe is None:
                    # not the run just before: run the operator again (its
                    # other outputs exist while it runs: the graph does not
                    # count them)
                    self.transients[t] = int(sched.nodes[op].get("size", 0))
                    code.lines.append("%s = _keep(%s, %r)" % (var, call(fx[op], code, t, True),
                                                              ks))
                else:  # the probe sees the rerun's whole output
                    self.transients[t] = int(sched.nodes[op].get("size", 0))
                    code.lines.append("_tr = %s" % call(fx[op], code, t, True))
                    code.lines.append("%s = _keep(_tr, %r)" % (var, ks))
                    after.append("del _tr")
            elif v in joint.split:
                # a backward operator run by parts: its own outputs alone
                code.lines.append("%s = %s" % (var, call(n, code, t, ks=joint.split[v][1])))
            else:
                code.lines.append("%s = %s" % (var, call(n, code, t)))
                mine = [(g, ks) for g, (op, ks) in joint.merged.items() if op == v]
                if mine:
                    # a forward operator's further outputs go to their getitem
                    # node when that runs next, else they are dropped now
                    allk = []
                    for g, ks in mine:
                        if t + 1 < len(sched.steps) and sched.steps[t + 1][0] == g:
                            stash[g] = "s%d" % t
                            code.lines.append("s%d = _keep(%s, %r)" % (t, var, ks))
                        allk += ks
                    after.append("%s = _drop(%s, %r)" % (var, var, sorted(allk)))
            if probe is not None:
                code.lines.append("P(%d, locals())" % t)
            code.lines += after
            held[v] = var
            gone = [held.pop(u) for u, _ in sched.drop[t] if u in held]
            if gone:
                code.lines.append("del " + ", ".join(gone))
            for i in range(first, len(code.lines)):
                self.line_step[(code is bwd, i)] = t
            if t == loss_at:
                self.saved = sorted(set(held.values()) | set(stash.values()),
                                    key=lambda x: (x[0], int(x[1:])))
                fwd.lines.append("return %s, [%s]" % (var, ", ".join(self.saved)))
                code = bwd
                if self.saved:
                    bwd.lines.append("%s, = S" % ", ".join(self.saved))
                bwd.lines.append("S.clear()")
        out_node = [n for n in gm.graph.nodes if n.op == "output"][0]
        grads = []
        for o, name in zip(list(out_node.args[0])[1:], names):
            grads.append(ev(o, bwd, len(sched.steps) - 1)
                         if o is not None and name.startswith("param:") else "None")
        bwd.lines.append("return [%s]" % ", ".join(grads))
        self.source = ("def fwd(R, B):\n" + "".join("    %s\n" % x for x in fwd.lines) +
                       "\n\ndef bwd(R, S, G, B):\n" + "".join("    %s\n" % x for x in bwd.lines))
        self._bwd_line = len(fwd.lines) + 5  # source line of bwd's first statement
        self._steps = sched.steps
        exec(compile(self.source, "<plan>", "exec"), env)
        self.fwd, self.bwd = env["fwd"], env["bwd"]

    def step_of(self, exc):
        """(step, node id) of the generated line an exception came from, or
        None."""
        tb, line = exc.__traceback__, None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == "<plan>":
                line = tb.tb_lineno
            tb = tb.tb_next
        if line is None:
            return None
        key = (True, line - self._bwd_line) if line >= self._bwd_line else (False, line - 2)
        t = self.line_step.get(key)
        return None if t is None else (t, self._steps[t][0])


def _bn_stats(x, eps):
    """native_batch_norm's saved mean and inverse deviation (training) without
    its normalized output: what a plan asks for when it recomputes the
    statistics alone, in the statistics' memory."""
    var, mean = torch.var_mean(x, dim=[0] + list(range(2, x.dim())), unbiased=False)
    return [None, mean, torch.rsqrt(var + eps)]


def _ln_stats(x, shape, eps):
    """native_layer_norm's saved mean and reciprocal deviation alone."""
    var, mean = torch.var_mean(x, dim=list(range(x.dim() - len(shape), x.dim())), unbiased=False,
                               keepdim=True)
    return [None, mean, torch.rsqrt(var + eps)]


def _keep(out, ks):
    return [x if k in ks else None for k, x in enumerate(out)]


def _drop(out, ks):
    return [None if k in ks else x for k, x in enumerate(out)]


class _Step(torch.autograd.Function):
    """The planned step between autograd and the program: forward returns
    the loss, backward the parameter gradients."""

    @staticmethod
    def forward(ctx, owner, base, *primals):
        R = list(primals)
        loss, saved = owner.program.fwd(R, base)
        ctx.owner, ctx.R, ctx.S, ctx.base = owner, R, saved, base
        ctx.versions = [p._version for p in primals[:owner.n_params]]
        return loss

    @staticmethod
    def backward(ctx, g):
        if ctx.S is None:
            raise RuntimeError("remat_torch: the planned step frees its values as the plan says; "
                               "backward runs once per forward (retain_graph is not supported)")
        R, S = ctx.R, ctx.S
        ctx.R = ctx.S = None
        for p, v in zip(R, ctx.versions):
            if p._version != v:
                raise RuntimeError("remat_torch: a parameter was modified in place between the "
                                   "planned forward and backward")
        grads = ctx.owner.program.bwd(R, S, g, ctx.base)
        del R, S
        return (None, None) + tuple(grads)


class PlannedModule(torch.nn.Module):
    """model's training step run by a plan: `loss = step(*inputs)` then
    `loss.backward()`. The loss is the graph's (recipe "loss": the sum of
    the model's outputs); gradients land in the parameters' .grad as
    autograd's would (set them to None before each step: the plan's
    simulation holds no gradient from the step before).

    graph, plan: paths or loaded documents. device: where the step runs
    (default: the model's parameters' device; the trace is always a fake
    CPU trace, as the exporter's). Raises PlanRefused (see the module
    comment). Attributes: schedule (Schedule: simulated peak and cost),
    held_peak (Schedule.held: what every run of the schedule holds, above
    the simulated peak only where a forward operator runs again for its
    further outputs alone), program (Program: the generated
    code in program.source), baseline_cost (the graph's own order run once),
    example (the inputs' shapes)."""

    def __init__(self, model, graph, plan, device=None):
        super().__init__()
        doc, glabel = _doc(graph, "remat-graph")
        plan, plabel = _doc(plan, "remat-plan")
        recipe = doc.get("recipe")
        if not isinstance(recipe, dict) or "batch" not in recipe or "model" not in recipe:
            raise PlanRefused("%s: no recipe: a plan runs on a joint graph written by "
                              "tools/export_torch.py" % glabel)
        if recipe.get("loss", "sum") != "sum":
            raise PlanRefused("%s: loss '%s': only the sum loss is traced" % (glabel,
                                                                              recipe["loss"]))
        self.model = model
        self.recipe = recipe
        self.schedule = check_plan(doc, plan, glabel, plabel)
        base = [(d["id"], d.get("inputs", [])) for d in doc["nodes"] if d.get("phase") != "input"]
        self.baseline_cost = sum(float(self.schedule.nodes[v].get("cost", 1)) for v, _ in base)
        self.example = recipe_example(recipe)
        try:
            gm, names, joint = trace(model, self.example)
        except torch_joint.Refused as ex:
            raise PlanRefused("cannot trace the model: %s" % ex)
        try:
            check_trace(doc, joint, glabel)
        except PlanRefused as ex:
            raise PlanRefused(str(ex).replace("the recipe's trace", "this model's trace").replace(
                "(the graph does not match its recipe; export it again)",
                "(another model, width, batch or torch release than the graph's)"))
        if device is None:
            first = next(iter(model.parameters()), None)
            device = first.device if first is not None else torch.device("cpu")
        self.device = torch.device(device)
        # where the primals live (parameters and buffers are read from their
        # modules at every step, in the trace's order)
        slots = [(m, k) for _, m in model.named_modules() for k in m._parameters
                 if m._parameters[k] is not None]
        seen, self._slots = set(), []
        for m, k in slots:  # named_parameters' order, shared parameters once
            if id(m._parameters[k]) not in seen:
                seen.add(id(m._parameters[k]))
                self._slots.append((m._parameters, k))
        self.n_params = len(self._slots)
        bslots = [(m, k) for _, m in model.named_modules() for k in m._buffers
                  if m._buffers[k] is not None]
        seen = set()
        for m, k in bslots:
            if id(m._buffers[k]) not in seen:
                seen.add(id(m._buffers[k]))
                self._slots.append((m._buffers, k))
        if [id(d[k]) for d, k in self._slots] != \
                [id(v) for v in torch_joint.primal_values(model, ())]:
            raise PlanRefused("cannot list the model's parameters and buffers in "
                              "named_parameters' order")
        self.program = Program(gm, names, joint, self.schedule, self.device)
        self.held_curve = self.schedule.held(self.program.transients)
        self.held_peak = max(self.held_curve, default=self.schedule.input_bytes)
        self._bn = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)
                    and m.track_running_stats and m.num_batches_tracked is not None]

    def check_inputs(self, inputs):
        """PlanRefused unless inputs have the recipe's batch, shapes and dtypes."""
        if len(inputs) != len(self.example):
            raise PlanRefused("the plan's graph takes %d inputs, got %d"
                              % (len(self.example), len(inputs)))
        for i, (x, e) in enumerate(zip(inputs, self.example)):
            if not isinstance(x, torch.Tensor):
                raise PlanRefused("input %d is not a tensor" % i)
            if tuple(x.shape) == tuple(e.shape) and x.dtype == e.dtype:
                continue
            if x.dim() and x.shape[1:] == e.shape[1:] and x.dtype == e.dtype:
                raise PlanRefused("the plan was made for batch %d, got batch %d (export the "
                                  "graph and solve again at batch %d)"
                                  % (e.shape[0], x.shape[0], x.shape[0]))
            raise PlanRefused("the plan was made for input %d of %s %s, got %s %s" % (
                i, str(e.dtype).replace("torch.", ""), list(e.shape),
                str(x.dtype).replace("torch.", ""), list(x.shape)))

    def forward(self, *inputs, seed=None):
        """The loss of one step on inputs (the recipe's batch and shapes);
        call backward() on it. seed: the base of this step's random
        operators' seeds (default: one draw from torch's generator)."""
        if not self.model.training:
            raise PlanRefused("the plan is a training step (traced in train mode): evaluate "
                              "with the model itself")
        self.check_inputs(inputs)
        primals = [d[k] for d, k in self._slots] + [x.to(self.device) for x in inputs]
        for m in self._bn:
            m.num_batches_tracked.add_(1)
        return _Step.apply(self, step_seed() if seed is None else int(seed), *primals)


def eager_step(model, inputs, base, device=None):
    """The same step in plain autograd (the reference): the loss of model on
    inputs, random operators seeded as PlannedModule seeds them."""
    with Reseed(base, restore=True, device=device):
        return torch_joint.loss_of(model(*inputs))
