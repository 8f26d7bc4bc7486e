"""torch_joint.py — the joint forward+backward ATen graph of a PyTorch model,
as the exporter writes it and the torch replay runs it.

capture() traces one training step (forward, a sum loss, backward) with
functorch.compile.aot_function, which hands its partitioner the joint graph
autograd actually executes. analyse() runs that graph once on real tensors
and turns it into remat-graph nodes:

- every node owns its output's memory: an operator whose output shares a
  storage with one of its arguments (views, detach, split) is folded into
  the value it aliases, and its readers read that value;
- a fresh tensor written in place by its only reader (aot's functionalised
  bernoulli_) is folded into that writer, which then owns the storage;
- an operator with several outputs (batch norm, max pooling with indices,
  dropout) owns the first one read and those nothing reads; the further
  ones read are counted as its workspace while it runs and are one `getitem`
  node that reads the operator's inputs and costs the operator's run
  (producing them again means running it again; the replay hands over the
  outputs of the run just before when there is one);
- a backward operator with an output_mask (convolution_backward,
  native_batch_norm_backward, native_layer_norm_backward) is split by its
  mask into two runs: the operator's node computes its first output alone
  (the input's gradient) and one getitem node, reading the operator's
  inputs and placed just before the operator in the graph's order,
  computes the further outputs alone (the weight and bias gradients), each
  costing its part of the run and allocating only what it owns, so every
  step of any schedule holds what the graph counts (taking the weight
  gradient again means computing it again). When the
  first output is not computed (the first layer's input needs no
  gradient), the operator's node owns all its outputs. A backward operator
  with several outputs and no mask is handled as a forward one;
- parameters, buffers and the batch are `input` nodes; the loss (the sum of
  the model's outputs) is the `loss` node, and the backward reads it where
  autograd reads the loss gradient (a scalar 1);
- nodes traced before the first node that depends on the loss gradient are
  forward nodes, the rest backward nodes; no grad_of is written: solvers
  infer the pairing from the data flow (docs/solvers/).

Node ids are the FX node names, which a new trace of the same recipe
reproduces, so the replay (replay_torch.py) maps the graph back to the
operators without storing them.

Fake tracing (fake=True in load_model, fake_values(), and the mode passed to
capture() and analyse()): the model is built with its parameters on the
meta device and traced and analysed with FakeTensors (torch 1.13's
FakeTensorMode): every operator computes shapes, strides and storage
aliasing but no data, so a graph at batch 256, or with a LLaMA-7B's
parameters, is made in seconds and without the memory. The nodes, sizes and
FLOP costs are those of a real trace of the same recipe (tests/cli/
test_train.sh checks it at a third batch size); what needs values (--time,
--check) traces for real.
"""
import contextlib
import importlib.util
import operator
import os
import sys
import time
import traceback

import torch
from functorch.compile import aot_function

# the bytes kept between the passes are counted as for the layer-level
# graphs; export_torch and fidelity call it through this module
from remat_graph import kept_for_backward  # noqa: E402,F401

try:  # torch 2 (its torch.nn.utils.stateless one warns that it goes)
    from torch.func import functional_call
except ImportError:  # torch 1.13
    from torch.nn.utils.stateless import functional_call

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
from models import FACTORIES  # noqa: E402  (the factories export_torch knows by name)


class Refused(Exception):
    """A model the exporter cannot handle; str() is the one-line reason."""


def storage_of(t):
    """(identity, bytes) of a tensor's storage: views of one storage share the
    identity (the storage object's address, which fake tensors have too;
    their data pointers are all 0)."""
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    return s._cdata, s.nbytes()


# ---- fake tracing ----------------------------------------------------------
# factory functions a module's constructor calls; while a model is built for
# a fake trace they make meta tensors (shapes only)
_FACTORIES = ("empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm",
              "arange", "range", "eye", "linspace", "logspace", "tensor", "empty_strided",
              "normal")


class _OnMeta(torch.overrides.TorchFunctionMode):
    """Factory functions called inside make meta tensors: a model built
    under it has its parameters and buffers on the meta device (a LLaMA-7B
    shape would otherwise need 27 GB of real parameters)."""

    def __init__(self):
        super().__init__()
        self.funcs = {getattr(torch, f) for f in _FACTORIES if hasattr(torch, f)}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = dict(kwargs or {})
        if func in self.funcs:
            kwargs["device"] = "meta"
        return func(*args, **kwargs)


_meta_lib = None


def _channels_last_2d(t):
    """c10's is_channels_last_strides_2d (what suggest_memory_format asks)."""
    if t.dim() != 4:
        return False
    sizes, strides = t.shape, t.stride()
    if strides[1] == 0:
        return False
    lo = 0
    for d in (1, 3, 2, 0):
        if sizes[d] == 0 or strides[d] < lo:
            return False
        if d == 0 and lo == strides[1]:
            return False
        lo = strides[d] * (sizes[d] if sizes[d] > 1 else 1)
    return True


def _conv_format(input, weight):
    """The memory format CPU convolutions (mkldnn and the slow path) give
    their outputs and gradients: channels-last when the input or the weight
    is (not for float64), else contiguous."""
    if input.dim() == 4 and input.dtype != torch.float64 and \
            (_channels_last_2d(input) or _channels_last_2d(weight)):
        return torch.channels_last
    return torch.contiguous_format


def _register_meta_kernels():
    """Shape functions for operators of common models that torch 1.13's fake
    tensors lack (convolution_backward) or whose outputs' strides differ from
    the CPU kernels' (convolution, layer norm and their gradients: torch's own
    follow the input's strides, the CPU's are contiguous or channels-last).
    Strides decide which operators autograd records (a reshape is a view or
    a copy, mm's backward transposes one operand or the other), so a fake
    trace must get them as the CPU does to give the real trace's graph. They
    go first in FakeTensorMode's table of operator implementations; a fake
    trace never runs a real kernel (the fallback would allocate real
    tensors)."""
    global _meta_lib
    if _meta_lib is not None:
        return
    from torch._subclasses import fake_tensor as ft
    if not hasattr(ft, "op_implementations"):
        # torch 2's fake tensors have these shape functions (meta kernels
        # that follow the real kernels' strides) and look up meta kernels
        # before any table an outside module could extend: nothing to add
        _meta_lib = False
        return
    from torch._meta_registrations import meta_conv
    aten = torch.ops.aten

    def meta(x):
        return torch.empty_strided(x.shape, x.stride(), dtype=x.dtype, device="meta")

    def new(mode, like, shape, fmt=torch.contiguous_format, dtype=None):
        t = torch.empty(tuple(shape), dtype=dtype or like.dtype, device="meta", memory_format=fmt)
        return ft.FakeTensor(mode, t, like.fake_device)

    def convolution(mode, func, input, weight, bias, stride, padding, dilation, transposed,
                    output_padding, groups):
        out = meta_conv(meta(input), meta(weight), None, stride, padding, dilation, transposed,
                        output_padding, groups)
        return new(mode, input, out.shape, _conv_format(input, weight))

    def convolution_backward(mode, func, grad_output, input, weight, bias_sizes, stride, padding,
                             dilation, transposed, output_padding, groups, output_mask):
        fmt = _conv_format(input, weight)
        return (new(mode, grad_output, input.shape, fmt) if output_mask[0] else None,
                new(mode, grad_output, weight.shape, fmt) if output_mask[1] else None,
                new(mode, grad_output, bias_sizes) if output_mask[2] and bias_sizes is not None
                else None)

    def native_layer_norm(mode, func, input, normalized_shape, weight, bias, eps):
        stat = list(input.shape[:input.dim() - len(normalized_shape)]) + [1] * len(normalized_shape)
        return new(mode, input, input.shape), new(mode, input, stat), new(mode, input, stat)

    def native_layer_norm_backward(mode, func, grad_out, input, normalized_shape, mean, rstd,
                                   weight, bias, output_mask):
        return (new(mode, grad_out, input.shape) if output_mask[0] else None,
                new(mode, grad_out, weight.shape) if output_mask[1] and weight is not None
                else None,
                new(mode, grad_out, bias.shape) if output_mask[2] and bias is not None else None)

    def adaptive_avg_pool2d_backward(mode, func, grad_output, input):
        fmt = torch.channels_last if _channels_last_2d(input) else torch.contiguous_format
        return new(mode, grad_output, input.shape, fmt)

    table = {aten.convolution.default: convolution,
             aten._adaptive_avg_pool2d_backward.default: adaptive_avg_pool2d_backward,
             aten.convolution_backward.default: convolution_backward,
             aten.native_layer_norm.default: native_layer_norm,
             aten.native_layer_norm_backward.default: native_layer_norm_backward}
    ft.op_implementations.insert(0, (lambda func: func in table,
                                     lambda mode, func, *a, **kw: table[func](mode, func, *a, **kw)))
    # the analysis runs the traced graph on plain meta tensors (strides no
    # longer matter: the operators are chosen): kernels for those without one
    _meta_lib = torch.library.Library("aten", "IMPL", "Meta")

    def conv_bwd_meta(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                      transposed, output_padding, groups, output_mask):
        fmt = _conv_format(input, weight)
        return (torch.empty(input.shape, dtype=grad_output.dtype, device="meta",
                            memory_format=fmt) if output_mask[0] else None,
                torch.empty(weight.shape, dtype=grad_output.dtype, device="meta",
                            memory_format=fmt) if output_mask[1] else None,
                grad_output.new_empty(bias_sizes) if output_mask[2] and bias_sizes is not None
                else None)

    def pool_bwd_meta(grad_output, input):
        fmt = torch.channels_last if _channels_last_2d(input) else torch.contiguous_format
        return torch.empty(input.shape, dtype=grad_output.dtype, device="meta", memory_format=fmt)
    _meta_lib.impl("convolution_backward", conv_bwd_meta)
    _meta_lib.impl("_adaptive_avg_pool2d_backward", pool_bwd_meta)


def fake_mode():
    """A FakeTensorMode for one fake trace (no fallback to real kernels: an
    operator without a meta kernel is refused, naming it)."""
    from torch._subclasses.fake_tensor import FakeTensorMode
    _register_meta_kernels()
    return FakeTensorMode(allow_fallback_kernels=False)


def fake_values(mode, values, device="cpu"):
    """FakeTensors of `mode` standing for `values` (real tensors on any
    device, or meta tensors): same shapes, strides, dtypes and requires_grad,
    on `device` as far as operators can tell (the CPU: the exporter's
    operators)."""
    from torch._subclasses.fake_tensor import FakeTensor
    out = []
    for v in values:
        m = torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="meta")
        out.append(FakeTensor(mode, m.requires_grad_(v.requires_grad), torch.device(device)))
    return out


def load_model(spec, batch, input_shape=None, dtype=torch.float32, seed=0, model_args=None,
               fake=False, with_shape=False):
    """(model, example inputs as a tuple) for a recipe: MODEL is a torchvision
    name, a factory in tools/models.py, path.py:factory (returning a module or
    (module, input shape)) or path.py:Class (instantiated without arguments).
    model_args: keyword arguments for the constructor (vit_b_16's image_size).
    Parameters are drawn after torch.manual_seed(seed), inputs after
    manual_seed(seed + 1), so a recipe always rebuilds the same tensors.
    fake=True: parameters, buffers and inputs are meta tensors (shapes only,
    for a fake trace); a constructor that needs real values is built for real.
    with_shape=True: (model, example, parsed input shape) (make_inputs)."""
    if fake:
        try:
            with _OnMeta():
                return load_model(spec, batch, input_shape, dtype, seed, model_args,
                                  with_shape=with_shape)
        except Refused:
            raise
        except Exception:  # a constructor that reads values: build it for real
            return load_model(spec, batch, input_shape, dtype, seed, model_args,
                              with_shape=with_shape)
    kw = dict(model_args or {})
    torch.manual_seed(seed)
    shape = None
    if ":" in spec:
        path, name = spec.rsplit(":", 1)
        if not os.path.exists(path):
            raise Refused("no such file '%s'" % path)
        modspec = importlib.util.spec_from_file_location("user_model_%d" % abs(hash(path)), path)
        mod = importlib.util.module_from_spec(modspec)
        modspec.loader.exec_module(mod)
        if not hasattr(mod, name):
            raise Refused("%s defines no '%s'" % (path, name))
        made = getattr(mod, name)(**kw)
    else:
        sys.path.insert(0, TOOLS)
        import models
        if spec in FACTORIES:
            made = getattr(models, spec)(**kw)
        else:
            import torchvision
            if not hasattr(torchvision.models, spec) or spec.startswith("_"):
                raise Refused("unknown model '%s' (a torchvision name, %s, or file.py:factory)"
                              % (spec, ", ".join(FACTORIES)))
            made = getattr(torchvision.models, spec)(weights=None, **kw)
            shape = (3, kw.get("image_size", 224), kw.get("image_size", 224))
    model, shape = made if isinstance(made, tuple) else (made, shape)
    if not isinstance(model, torch.nn.Module):
        raise Refused("%s did not give an nn.Module" % spec)
    if input_shape:
        shape = parse_shape(input_shape)
    if shape is None:
        raise Refused("give --input-shape for model '%s'" % spec)
    torch.manual_seed(seed + 1)
    example = make_inputs(shape, batch, dtype)
    model = model.to(dtype)
    model.train()
    return (model, example, shape) if with_shape else (model, example)


def make_inputs(shape, batch, dtype=torch.float32, generator=None):
    """Random inputs (a tuple) of a parsed input shape at a batch: normal
    values, or token ids below the vocabulary size (parse_shape)."""
    if isinstance(shape[0], tuple):
        return tuple(make_inputs(x, batch, dtype, generator)[0] for x in shape)
    if shape[0] == "long":
        return (torch.randint(0, shape[2], (batch, shape[1]), generator=generator),)
    return (torch.randn((batch,) + tuple(shape), dtype=dtype, generator=generator),)


def parse_shape(text):
    """"3,32,32" -> (3, 32, 32); "3,32,32;16" -> ((3, 32, 32), (16,)) for a
    model with several inputs; "long:128:1024" -> token ids (length, vocab)."""
    parts = [p for p in text.split(";") if p]
    out = []
    for p in parts:
        if p.startswith("long:"):
            _, n, v = p.split(":")
            out.append(("long", int(n), int(v)))
        else:
            out.append(tuple(int(x) for x in p.split(",")))
    return out[0] if len(out) == 1 else tuple(out)


def loss_of(out):
    """The traced loss: the sum of every output tensor (as float)."""
    if isinstance(out, torch.Tensor):
        return out.float().sum() if out.dtype != torch.float32 else out.sum()
    if isinstance(out, dict):
        out = list(out.values())
    total = None
    for o in out:
        s = loss_of(o)
        total = s if total is None else total + s
    return total


def primal_names(model, example):
    names = ["param:" + n for n, _ in model.named_parameters()]
    names += ["buffer:" + n for n, _ in model.named_buffers()]
    names += ["input" if len(example) == 1 else "input%d" % i for i in range(len(example))]
    return names


def primal_values(model, example):
    return [p for _, p in model.named_parameters()] + [b for _, b in model.named_buffers()] + \
        list(example)


def where_in_model(tb):
    """file:line in function: `code` of the deepest frame outside torch,
    functorch and this tool: the model's own line."""
    frames = traceback.extract_tb(tb)
    skip = ("/torch/", "/functorch/", os.path.join(TOOLS, "torch_joint.py"))
    for fr in reversed(frames):
        if not any(s in fr.filename for s in skip):
            code = (fr.line or "").strip()
            return "%s:%d in %s%s" % (os.path.basename(fr.filename), fr.lineno, fr.name,
                                      ": `%s`" % code if code else "")
    return ""


def failing_operator(tb):
    """The ATen operator being dispatched when tracing failed, if any."""
    op = None
    while tb:
        f = tb.tb_frame
        if f.f_code.co_name in ("proxy_call", "__torch_dispatch__", "inner_torch_dispatch"):
            cand = f.f_locals.get("func")
            if cand is not None:
                op = cand
        tb = tb.tb_next
    return str(op) if op is not None else None


def _meta_like(v):
    return torch.empty_strided(v.shape, v.stride(), dtype=v.dtype, device="meta")


def _to_meta(x):
    if isinstance(x, torch.device):
        return torch.device("meta")
    if isinstance(x, torch.Tensor) and x.device.type != "meta" and \
            not hasattr(x, "fake_device"):
        return x.to("meta")
    return x


class _Captured(Exception):
    """Raised by the partitioner once it holds the joint graph: nothing
    after the trace (compiling, running the two halves) is needed."""


def capture(model, example, mode=None, values=None):
    """The joint graph (an fx GraphModule of ATen operators) of one training
    step. Raises Refused naming the operator or construct and the model's
    source line when the model cannot be traced. mode: a fake_mode() to
    trace in, with values its fake_values() of primal_values(model,
    example); without it the trace runs on the real tensors."""
    names = primal_names(model, example)
    pn = [n for n, _ in model.named_parameters()]
    bn = [n for n, _ in model.named_buffers()]
    np_, nb = len(pn), len(bn)

    def step(*flat):
        state = dict(zip(pn, flat[:np_]))
        state.update(zip(bn, flat[np_:np_ + nb]))
        return (loss_of(functional_call(model, state, tuple(flat[np_ + nb:]))),)

    got = {}

    def keep_joint(joint, inputs, **kw):
        got["joint"] = joint
        raise _Captured()

    compiled = aot_function(step, lambda g, _: g, lambda g, _: g, partition_fn=keep_joint)
    try:
        if mode is None:
            compiled(*primal_values(model, example))
        else:
            try:  # torch 1.13's aot_function clones the real RNG state: not under a fake mode
                import functorch._src.aot_autograd as aot
                saved = aot.preserve_rng_state
            except (ImportError, AttributeError):  # torch 2 leaves the fake mode for it itself
                aot = saved = None
            if aot is not None:
                aot.preserve_rng_state = contextlib.nullcontext
            try:
                with mode:
                    compiled(*values)
            finally:
                if aot is not None:
                    aot.preserve_rng_state = saved
    except _Captured:
        pass
    except Exception as ex:  # tracing raises many types; report one line
        tb = ex.__traceback__
        where = where_in_model(tb)
        op = failing_operator(tb)
        first = (str(ex).strip().splitlines() or [type(ex).__name__])[0]
        if "value out of a tracing tensor" in first:
            what = "data-dependent control flow (a tensor's value read in Python, %s)" % (
                op or "aten._local_scalar_dense")
        elif op:
            what = "operator %s: %s" % (op, first)
        else:
            what = "%s: %s" % (type(ex).__name__, first)
        raise Refused("%s%s" % (what, " at " + where if where else ""))
    joint = got["joint"]
    _as_in_place(joint, names)
    return joint, names


def _as_in_place(gm, names):
    """torch 2's joint graph in the form of torch 1.13's, which the analysis
    and the replay read. torch 2 traces functionally: the forward returns
    the new value of every input it updates ahead of the loss, and batch
    norm is _native_batch_norm_legit_functional, whose outputs 3 and 4 are
    the new running mean and variance. Here batch norm becomes
    native_batch_norm again, updating the running statistics it is given in
    place (what the replay passes it are the model's own buffers), its
    outputs 3 and 4 read as those buffers; num_batches_tracked's increment
    is dropped (remat_torch.PlannedModule counts steps as eager does); and
    the forward returns the loss alone. Any other updated input is refused,
    naming it. A torch 1.13 graph returns the loss alone: left as it is."""
    g = gm.graph
    out = [n for n in g.nodes if n.op == "output"][0]
    outs = list(out.args[0])
    extra = len(outs) - 1 - len(names)
    if extra <= 0:
        return
    aten = torch.ops.aten
    placeholders = [n for n in g.nodes if n.op == "placeholder"]
    bn_fn = getattr(aten, "_native_batch_norm_legit_functional", None)
    for n in list(g.nodes):
        if bn_fn is None or n.op != "call_function" or n.target is not bn_fn.default:
            continue
        for u in list(n.users):
            if u.target is operator.getitem and u.args[1] in (3, 4):
                u.replace_all_uses_with(n.args[u.args[1]])
                g.erase_node(u)
        n.target = aten.native_batch_norm.default
    outs = list(out.args[0])
    for o in outs[:extra]:
        if o in placeholders and names[placeholders.index(o)].endswith(
                ("running_mean", "running_var")):
            continue
        if isinstance(o, torch.fx.Node) and o.target is aten.add.Tensor and \
                o.args[0] in placeholders and \
                names[placeholders.index(o.args[0])].endswith("num_batches_tracked"):
            continue
        raise Refused("torch %s's trace updates an input by %s, which the exporter does not "
                      "model" % (torch.__version__, getattr(o, "name", o)))
    out.args = (tuple(outs[extra:]),)
    for o in outs[:extra]:
        if o.op == "call_function" and not o.users:
            g.erase_node(o)
    g.lint()
    gm.recompile()


def is_random(target):
    return isinstance(target, torch._ops.OpOverload) and \
        torch.Tag.nondeterministic_seeded in target.tags


def writes_first_arg(target):
    """In-place operator writing its first argument and returning it."""
    if not isinstance(target, torch._ops.OpOverload):
        return False
    a = target._schema.arguments
    return bool(a) and a[0].alias_info is not None and a[0].alias_info.is_write and \
        str(target._schema.returns[0].type) == "Tensor" and target._schema.returns[0].alias_info is not None


def op_name(target):
    if target is operator.getitem:
        return "getitem"
    if isinstance(target, torch._ops.OpOverload):
        return target.overloadpacket.__name__
    return getattr(target, "__name__", str(target))


def numel(t):
    return t.numel() if isinstance(t, torch.Tensor) else 0


def flops(target, args, outs):
    """FLOPs of one run (multiply-add = 2): convolutions and matrix products
    by formula, everything else one per element of its largest tensor."""
    name = op_name(target)
    out_n = sum(numel(o) for o in outs)
    if name == "convolution":
        x, w = args[0], args[1]
        transposed = args[6] if len(args) > 6 else False
        if transposed:
            return 2 * x.numel() * w[0].numel()
        return 2 * outs[0].numel() * w[0].numel()
    if name == "convolution_backward":
        gout, x, w = args[0], args[1], args[2]
        mask = args[-1] if isinstance(args[-1], (list, tuple)) else [True, True, True]
        one = 2 * gout.numel() * w[0].numel()
        return one * (int(bool(mask[0])) + int(bool(mask[1]))) + (gout.numel() if mask[2] else 0)
    if name in ("mm", "addmm"):
        a, b = (args[1], args[2]) if name == "addmm" else (args[0], args[1])
        return 2 * a.shape[0] * a.shape[1] * b.shape[1] + (out_n if name == "addmm" else 0)
    if name in ("bmm", "baddbmm"):
        a, b = (args[1], args[2]) if name == "baddbmm" else (args[0], args[1])
        return 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
    in_n = 0
    for a in args:
        if isinstance(a, torch.Tensor):
            in_n = max(in_n, a.numel())
        elif isinstance(a, (list, tuple)):
            for x in a:
                in_n = max(in_n, numel(x))
    return max(out_n, in_n, 1)


class Joint:
    """The joint graph's remat nodes and what the replay needs to run them.

    nodes: remat-graph node dicts in trace order (inputs first).
    outputs: ids of the parameter gradients (the graph's outputs).
    grads: {parameter name: fx node name of its gradient}.
    loss: id of the loss node; tangent: fx name of the loss gradient input.
    placeholder: {fx placeholder name: remat input id}; consts: {fx get_attr
    name: attribute} (their ids are "const:" + attribute).
    merged: {getitem node id: (fx name of an operator, indices of the
    outputs it holds)}; split: {fx name of a backward operator run by parts:
    (index of its output_mask argument, indices of the outputs its own node
    computes)}, its getitem node in merged computing the rest; folded: fx
    names of fresh tensors folded into the operator that fills them in
    place.
    """


def mask_index(target):
    """Position of an operator's output_mask argument (bool[3]: which of
    its outputs to compute), or None."""
    if not isinstance(target, torch._ops.OpOverload):
        return None
    for i, a in enumerate(target._schema.arguments):
        if a.name == "output_mask":
            return i
    return None


def with_mask(n, args, kwargs, ks):
    """(args, kwargs) of operator node n with its output_mask set to
    compute the outputs ks alone."""
    i = mask_index(n.target)
    nout = len(n.target._schema.returns)
    mask = [k in ks for k in range(nout)]
    if i < len(args):
        args = tuple(args[:i]) + (mask,) + tuple(args[i + 1:])
    else:
        kwargs = dict(kwargs, output_mask=mask)
    return args, kwargs


def analyse(gm, names, values, timing=0, mode=None):
    """Run the joint graph once on `values` (primals in `names` order) and
    build its remat nodes. timing > 0 runs each operator that many times
    and records its fastest CPU time (seconds) as node["time"]. mode: the
    fake_mode() the values belong to: the graph, whose operators the fake
    trace chose as the CPU would, then runs on meta tensors (sizes and
    aliasing without data or FakeTensor's per-operator cost); timing needs
    real values."""
    if mode is not None and timing:
        raise Refused("measured costs (--time) need a real trace")
    meta = mode is not None
    if meta:
        _register_meta_kernels()
        values = [_meta_like(v) for v in values]
    g = gm.graph
    nodes_fx = list(g.nodes)
    placeholders = [n for n in nodes_fx if n.op == "placeholder"]
    tangents = [n for n in placeholders if n.name.startswith("tangents")]
    primals = [n for n in placeholders if not n.name.startswith("tangents")]
    if len(primals) != len(names) or len(tangents) != 1:
        raise Refused("unexpected joint graph: %d primals for %d inputs, %d tangents"
                      % (len(primals), len(names), len(tangents)))
    out_node = [n for n in nodes_fx if n.op == "output"][0]
    outs = list(out_node.args[0])
    loss_fx = outs[0]
    # phase: forward until the first operator that depends on the tangent
    dep = {tangents[0].name}
    first_bwd = None
    for i, n in enumerate(nodes_fx):
        if n.op == "call_function" and any(a.name in dep for a in n.all_input_nodes):
            dep.add(n.name)
            if first_bwd is None:
                first_bwd = i
    pos = {n.name: i for i, n in enumerate(nodes_fx)}

    def phase(n):
        return "bwd" if first_bwd is not None and pos[n.name] >= first_bwd else "fwd"

    last_use = {}
    for i, n in enumerate(nodes_fx):
        for a in n.all_input_nodes:
            last_use[a.name] = i

    env = {}         # fx name -> runtime value
    reads = {}       # fx name -> remat ids needed to evaluate it (ordered dict as set)
    owner = {}       # fx name -> remat id owning its storage (tensor-valued nodes)
    elem_owner = {}  # fx name of a multi-output node -> [remat id or None] per element
    elem_reads = {}
    out_nodes = []   # remat nodes in order
    by_id = {}
    folded_into_writer = set()
    placeholder = {}
    for n, name in zip(primals, names):
        t = values[names.index(name)]
        env[n.name] = t
        placeholder[n.name] = name
        owner[n.name] = name
        reads[n.name] = {name: None}
        size = storage_of(t)[1]
        d = dict(id=name, op="input" if name.startswith("input") else "param", phase="input",
                 size=size)
        out_nodes.append(d)
        by_id[name] = d
    consts = {}  # fx get_attr name -> attribute
    merged = {}  # remat id -> (fx name of a forward operator, indices of its outputs it holds)
    split = {}  # fx name of a backward operator run by parts -> (mask index, its own outputs)
    loss_id = None  # known once the loss node runs; the tangent reads it
    tname = tangents[0].name
    reads[tname] = {}  # the loss, once known
    owner[tname] = None
    env[tname] = None

    def arg_reads(n):
        r = {}
        for a in n.all_input_nodes:
            r.update(reads[a.name])
        return r

    def add_node(nid, n, op, size, cost, ins, workspace=0):
        d = dict(id=nid, op=op, phase=phase(n), cost=cost, size=size)
        if workspace:
            d["workspace"] = workspace
        d["inputs"] = [i for i in ins if i != nid]
        out_nodes.append(d)
        by_id[nid] = d
        return d

    def run(n):
        args = torch.fx.node.map_arg(n.args, lambda a: env[a.name])
        kwargs = torch.fx.node.map_arg(n.kwargs, lambda a: env[a.name])
        if meta:  # constants the trace captured and factories' devices: meta
            args, kwargs = torch.fx.node.map_aggregate((args, kwargs), _to_meta)
        t0 = time.perf_counter()
        out = n.target(*args, **kwargs)
        best = time.perf_counter() - t0
        for _ in range(max(0, timing - 1)):
            t0 = time.perf_counter()
            n.target(*args, **kwargs)
            best = min(best, time.perf_counter() - t0)
        return args, out, best

    def run_part(n, ks):
        """(args with the mask for outputs ks, fastest time of that run):
        the cost of one part of a split operator."""
        args = torch.fx.node.map_arg(n.args, lambda a: env[a.name])
        kwargs = torch.fx.node.map_arg(n.kwargs, lambda a: env[a.name])
        if meta:
            args, kwargs = torch.fx.node.map_aggregate((args, kwargs), _to_meta)
        args, kwargs = with_mask(n, args, kwargs, ks)
        best = None
        for _ in range(timing):
            t0 = time.perf_counter()
            n.target(*args, **kwargs)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        return args, best or 0.0

    def visit(n):
        nonlocal loss_id
        if n.target is operator.getitem:
            src, k = n.args
            env[n.name] = env[src.name][k]
            ow = elem_owner[src.name][k]
            if ow == "merge:" + n.name and n.name in by_id:
                return  # a split operator's getitem node, made with its operator
            if ow == "merge:" + n.name:
                # a forward operator's further outputs, one node: it reads
                # what its operator reads (not the operator's first output,
                # so keeping a small saved statistic never means keeping a
                # large activation alive) and costs the operator's run,
                # which is what producing them again takes
                ks = merged[n.name][1]
                opd = by_id[src.name]
                d = add_node(n.name, n, "getitem", sum(storage_of(env[src.name][x])[1] for x in ks),
                             opd["cost"], list(opd["inputs"]))
                if timing:
                    d["time"] = opd.get("time", 0)
                owner[n.name] = n.name
                reads[n.name] = {n.name: None}
            elif ow and ow.startswith("merge:"):
                owner[n.name] = ow[6:]
                reads[n.name] = {ow[6:]: None}
            else:
                owner[n.name] = ow
                reads[n.name] = dict(elem_reads[src.name][k])
            return
        if tname in [a.name for a in n.all_input_nodes] and loss_id is None:
            raise Refused("the loss gradient is read before the loss is computed")
        arg_storage = {}
        for a in n.all_input_nodes:
            v = env[a.name]
            if isinstance(v, torch.Tensor) and owner.get(a.name):
                p, nb_ = storage_of(v)
                if nb_:
                    arg_storage[p] = owner[a.name]
        opn = op_name(n.target)
        base = n.args[0] if n.args and isinstance(n.args[0], torch.fx.Node) else None
        if writes_first_arg(n.target) and base is not None:
            if base.op == "placeholder" or base.name not in by_id or len(base.users) != 1:
                if base.op != "placeholder":
                    raise Refused("operator %s writes in place into '%s', which other operators "
                                  "also read" % (n.target, base.name))
            else:
                # a fresh tensor filled in place by its only reader: the writer owns it
                args, out, best = run(n)
                env[n.name] = out
                bd = by_id.pop(base.name)
                out_nodes.remove(bd)
                folded_into_writer.add(base.name)
                r_in = {x: None for x in bd["inputs"]}
                for a in n.all_input_nodes:
                    if a.name == tname:
                        r_in[loss_id] = None
                    elif a.name != base.name:
                        r_in.update(reads[a.name])
                reads[base.name] = {n.name: None}
                owner[base.name] = n.name
                d = add_node(n.name, n, opn, bd["size"], bd["cost"] + flops(n.target, args, [out]),
                             list(r_in))
                if timing:
                    d["time"] = bd.get("time", 0) + best
                owner[n.name] = n.name
                reads[n.name] = {n.name: None}
                return
        args, out, best = run(n)
        env[n.name] = out
        r_in = arg_reads(n)
        if not isinstance(out, (tuple, list)):
            if not isinstance(out, torch.Tensor):
                raise Refused("operator %s returns %s, not a tensor" % (n.target, type(out).__name__))
            p, nb_ = storage_of(out)
            if nb_ and p in arg_storage:
                owner[n.name] = arg_storage[p]
                reads[n.name] = r_in  # an alias: evaluated again wherever it is read
                return
            d = add_node(n.name, n, opn, nb_, flops(n.target, args, [out]), list(r_in))
            if timing:
                d["time"] = best
            owner[n.name] = n.name
            reads[n.name] = {n.name: None}
            if n is loss_fx:
                d["phase"] = "loss"
                loss_id = n.name
                env[tname] = torch.ones_like(out)
                reads[tname] = {loss_id: None}
            return
        # several outputs: the first one read stays with the operator (and
        # those nothing reads); the further ones read are one node together,
        # named after their first getitem. A backward operator with an
        # output_mask runs by parts: its node computes the first output
        # alone, the getitem node the further ones read
        elems = list(out)
        getitems = {}
        for u in n.users:
            if u.target is operator.getitem:
                getitems.setdefault(u.args[1], []).append(u)
        if phase(n) == "bwd" and mask_index(n.target) is not None and \
                not any(isinstance(e, torch.Tensor) and storage_of(e)[0] in arg_storage
                        for e in elems):
            split_node(n, args, elems, getitems, r_in)
            return
        size, work, have_first = 0, 0, False
        owners, ereads, seen = [], [], {}
        for k, e in enumerate(elems):
            if not isinstance(e, torch.Tensor):
                owners.append(None)
                ereads.append({})
                continue
            p, nb_ = storage_of(e)
            if nb_ and p in arg_storage:
                owners.append(arg_storage[p])
                ereads.append(r_in)
            elif nb_ and p in seen:
                owners.append(owners[seen[p]])
                ereads.append(ereads[seen[p]])
            elif not have_first or k not in getitems:
                seen[p] = k
                size += nb_
                owners.append(n.name)
                ereads.append({n.name: None})
                have_first = have_first or k in getitems
            else:
                seen[p] = k
                work += nb_
                owners.append("extract:" + getitems[k][0].name)
                ereads.append({getitems[k][0].name: None})
        ks = [k for k, o in enumerate(owners) if (o or "").startswith("extract:")]
        if ks:
            gid = min((getitems[k][0] for k in ks), key=lambda u: pos[u.name]).name
            merged[gid] = (n.name, ks)
            for k in ks:
                owners[k] = "merge:" + gid
                ereads[k] = {gid: None}
        elem_owner[n.name] = owners
        elem_reads[n.name] = ereads
        if all(o != n.name and not (o or "").startswith(("extract:", "merge:")) for o in owners):
            # every output aliases an argument (split, unbind): a view
            owner[n.name] = None
            reads[n.name] = r_in
            return
        d = add_node(n.name, n, opn, size, flops(n.target, args, elems), list(r_in), work)
        if timing:
            d["time"] = best
        owner[n.name] = n.name
        reads[n.name] = {n.name: None}

    def split_node(n, args, elems, getitems, r_in):
        """A backward operator run by parts (its output_mask): the node
        computes the first output alone when it is read, else every output
        read; one getitem node (reading the operator's inputs) computes the
        further ones read, and comes first in the graph's order: then the
        operator's inputs are freed after the operator, as after one run of
        the whole operator. Outputs nothing reads are not computed."""
        read = [k for k, e in enumerate(elems) if isinstance(e, torch.Tensor) and k in getitems]
        own = [0] if 0 in read else read
        further = [k for k in read if k not in own]
        owners, ereads = [], []
        for k in range(len(elems)):
            if k in own:
                owners.append(n.name)
                ereads.append({n.name: None})
            else:
                owners.append(None)
                ereads.append({})
        if further:
            gid = min((getitems[k][0] for k in further), key=lambda u: pos[u.name]).name
            merged[gid] = (n.name, further)
            fargs, t_f = run_part(n, further) if timing else (with_mask(n, args, {}, further)[0],
                                                                0.0)
            d = add_node(gid, n, "getitem", sum(storage_of(elems[k])[1] for k in further),
                         flops(n.target, fargs, [elems[k] for k in further]), list(r_in))
            if timing:
                d["time"] = t_f
            owner[gid] = gid
            reads[gid] = {gid: None}
            for k in further:
                owners[k] = "merge:" + gid
                ereads[k] = {gid: None}
        mask_args, t_own = run_part(n, own) if timing else (with_mask(n, args, {}, own)[0], 0.0)
        d = add_node(n.name, n, op_name(n.target), sum(storage_of(elems[k])[1] for k in own),
                     flops(n.target, mask_args, [elems[k] for k in own]), list(r_in))
        if timing:
            d["time"] = t_own
        split[n.name] = (mask_index(n.target), own)
        elem_owner[n.name] = owners
        elem_reads[n.name] = ereads
        owner[n.name] = n.name
        reads[n.name] = {n.name: None}

    for i, n in enumerate(nodes_fx):
        if n.op in ("placeholder", "output"):
            continue
        if n.op == "get_attr":
            # a constant the trace captured (swin_t's relative position
            # index): resident like a parameter
            t = getattr(gm, n.target)
            name = "const:" + n.target
            env[n.name] = t
            owner[n.name] = name
            reads[n.name] = {name: None}
            d = dict(id=name, op="param", phase="input", size=storage_of(t)[1])
            out_nodes.insert(len(placeholder) + len(consts), d)
            by_id[name] = d
            consts[n.name] = n.target
            continue
        if n.op != "call_function":
            raise Refused("unexpected %s node '%s' in the joint graph" % (n.op, n.name))
        visit(n)
        # the trace holds only values something still reads
        for a in n.all_input_nodes:
            if last_use.get(a.name) == i and a.op != "placeholder":
                env.pop(a.name, None)
    if loss_id is None:
        raise Refused("the loss is an alias of another value; cannot place the loss node")
    j = Joint()
    j.nodes = out_nodes
    j.loss = loss_id
    j.tangent = tname
    j.placeholder = placeholder
    j.consts = consts
    j.merged = merged
    j.split = split
    grads, outputs = {}, []
    for o, name in zip(outs[1:], names):
        if o is None:
            continue
        grads[name] = o.name
        for r in reads[o.name]:
            if r not in outputs:
                outputs.append(r)
    j.grads = grads
    j.outputs = outputs
    j.folded = folded_into_writer
    return j


def autograd_saved_bytes(model, example):
    """Bytes autograd saves for backward in an eager step of the same model
    and loss (unique storages; parameters, buffers and inputs excluded),
    measured with torch.autograd.graph.saved_tensors_hooks."""
    skip = {storage_of(t)[0] for t in primal_values(model, example)}
    seen = {}

    def pack(t):
        p, nb_ = storage_of(t)
        if p not in skip:
            seen[p] = max(seen.get(p, 0), nb_)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = loss_of(model(*example))
    loss.backward()
    model.zero_grad(set_to_none=True)
    return sum(seen.values())
