#!/usr/bin/env python3
"""gen_samples.py — regenerates the training-graph samples in samples/.

Each sample is written first as a forward-only remat-graph (input and fwd
nodes), then turned into its training graph by `remat transform`, so the
backward part always follows the project's own transform rule. Uses only the
Python standard library and the remat binary.

    python3 tools/gen_samples.py [--remat build/remat] [--out samples]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

F32 = 4  # bytes per float32 element


class Fwd:
    """A forward-only graph under construction."""

    def __init__(self, name, source, cost_unit, size_unit):
        self.name, self.source = name, source
        self.units = {"cost": cost_unit, "size": size_unit}
        self.nodes = []

    def input(self, nid, size, op="input"):
        self.nodes.append({"id": nid, "op": op, "phase": "input", "size": int(size)})
        return nid

    def param(self, nid, size):
        return self.input(nid, size, op="param")

    def op(self, nid, op, inputs, size, cost, workspace=0):
        n = {"id": nid, "op": op, "phase": "fwd", "cost": cost, "size": int(size),
             "inputs": list(inputs)}
        if workspace:
            n["workspace"] = int(workspace)
        self.nodes.append(n)
        return nid

    def doc(self):
        return {"format": "remat-graph", "version": 1, "name": self.name,
                "source": self.source, "units": self.units, "nodes": self.nodes}


# ---- the samples ------------------------------------------------------------

def chain32():
    g = Fwd("chain32", "a chain of 32 forward operations after one input x; unit sizes and costs",
            "unit", "unit")
    prev = g.input("x", 1)
    for i in range(1, 33):
        prev = g.op("f%d" % i, "layer", [prev], 1, 1)
    return g


def skip():
    # Kusumoto et al. 2019, Figure 2: a skip connection from the input layer
    # to the output layer, so no single value separates the network into
    # segments (Chen's sqrt(n) heuristic finds no articulation point).
    g = Fwd("skip", "after Kusumoto et al. 2019, Figure 2: eight layers l1..l8 and a skip "
            "connection from the input layer l1 to the output layer; unit sizes and costs",
            "unit", "unit")
    g.input("x", 1)
    prev = g.op("l1", "layer", ["x"], 1, 1)
    for i in range(2, 9):
        prev = g.op("l%d" % i, "layer", [prev], 1, 1)
    g.op("out", "add", ["l8", "l1"], 1, 1)
    return g


def join3():
    # Beaumont et al. 2020, Figure 2: three branches of lengths 5, 4 and 6,
    # each from its own input, meeting at one node before the loss.
    g = Fwd("join3", "after Beaumont et al. 2020, Figure 2: a join graph of three chains of "
            "lengths 5, 4 and 6 meeting at one node; unit sizes and costs", "unit", "unit")
    ends = []
    for b, length in zip("abc", (5, 4, 6)):
        prev = g.input("x%s" % b, 1)
        for i in range(1, length + 1):
            prev = g.op("%s%d" % (b, i), "layer", [prev], 1, 1)
        ends.append(prev)
    g.op("join", "join", ends, 1, 1)
    return g


def unet_small():
    g = Fwd("unet-small", "a small U-Net: batch 1, 3x64x64 float32 input, two 2x2 down/up "
            "levels (16, 32, 64 channels), 3x3 convolutions with im2col workspace, skip "
            "connections by concatenation, 1x1 output convolution; costs in FLOPs",
            "flop", "byte")
    g.input("x", 3 * 64 * 64 * F32)

    def conv(name, inp, cin, cout, hw, k=3):
        w = g.param(name + ".w", (cin * cout * k * k + cout) * F32)
        ws = cin * k * k * hw * hw * F32 if k > 1 else 0
        return g.op(name, "conv2d", [inp, w], cout * hw * hw * F32,
                    2 * cin * cout * k * k * hw * hw, ws)

    def relu(name, inp, c, hw):
        return g.op(name, "relu", [inp], c * hw * hw * F32, c * hw * hw)

    def pool(name, inp, c, hw):  # 2x2 max pool to hw/2
        o = hw // 2
        return g.op(name, "maxpool2d", [inp], c * o * o * F32, 4 * c * o * o)

    def up(name, inp, c, hw):  # nearest 2x upsample to 2hw
        o = 2 * hw
        return g.op(name, "upsample", [inp], c * o * o * F32, c * o * o)

    def cat(name, a, b, c, hw):
        return g.op(name, "concat", [a, b], c * hw * hw * F32, c * hw * hw)

    e1 = relu("enc1.relu", conv("enc1.conv", "x", 3, 16, 64), 16, 64)
    p1 = pool("pool1", e1, 16, 64)
    e2 = relu("enc2.relu", conv("enc2.conv", p1, 16, 32, 32), 32, 32)
    p2 = pool("pool2", e2, 32, 32)
    m = relu("mid.relu", conv("mid.conv", p2, 32, 64, 16), 64, 16)
    u2 = up("up2", m, 64, 16)
    c2 = cat("cat2", u2, e2, 96, 32)
    d2 = relu("dec2.relu", conv("dec2.conv", c2, 96, 32, 32), 32, 32)
    u1 = up("up1", d2, 32, 32)
    c1 = cat("cat1", u1, e1, 48, 64)
    d1 = relu("dec1.relu", conv("dec1.conv", c1, 48, 16, 64), 16, 64)
    conv("head.conv", d1, 16, 1, 64, k=1)
    return g


def transformer_small():
    S, D, H, FF = 128, 256, 4, 1024  # sequence, model width, heads, MLP width
    g = Fwd("transformer-small", "two pre-norm transformer blocks: batch 1, sequence 128, "
            "width 256, 4 heads, MLP 1024 with GELU, float32; parameters are param inputs; "
            "costs in FLOPs", "flop", "byte")
    act = S * D * F32
    h = g.input("x", act)

    def ln(name, inp):
        p = g.param(name + ".w", 2 * D * F32)
        return g.op(name, "layernorm", [inp, p], act, 8 * S * D)

    def linear(name, inp, din, dout):
        w = g.param(name + ".w", (din * dout + dout) * F32)
        return g.op(name, "matmul", [inp, w], S * dout * F32, 2 * S * din * dout)

    for b in (1, 2):
        p = "b%d." % b
        a = ln(p + "ln1", h)
        q = linear(p + "q", a, D, D)
        k = linear(p + "k", a, D, D)
        v = linear(p + "v", a, D, D)
        sc = g.op(p + "scores", "qk_matmul", [q, k], H * S * S * F32, 2 * S * S * D)
        sm = g.op(p + "softmax", "softmax", [sc], H * S * S * F32, 5 * H * S * S)
        ctx = g.op(p + "attn_v", "av_matmul", [sm, v], act, 2 * S * S * D)
        o = linear(p + "proj", ctx, D, D)
        r1 = g.op(p + "res1", "add", [h, o], act, S * D)
        a2 = ln(p + "ln2", r1)
        f1 = linear(p + "fc1", a2, D, FF)
        ge = g.op(p + "gelu", "gelu", [f1], S * FF * F32, 8 * S * FF)
        f2 = linear(p + "fc2", ge, FF, D)
        h = g.op(p + "res2", "add", [r1, f2], act, S * D)
    ln("ln_f", h)
    return g


SAMPLES = [("chain32", chain32), ("skip", skip), ("join3", join3),
           ("unet_small", unet_small), ("transformer_small", transformer_small)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--remat", default="build/remat", help="the remat binary")
    ap.add_argument("--out", default="samples", help="folder for the training graphs")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for fname, build in SAMPLES:
            fwd = os.path.join(tmp, fname + ".fwd.json")
            with open(fwd, "w") as f:
                json.dump(build().doc(), f, indent=2)
                f.write("\n")
            out = os.path.join(args.out, fname + ".json")
            r = subprocess.run([args.remat, "transform", fwd, "-o", out])
            if r.returncode:
                sys.exit("gen_samples: remat transform failed for %s" % fname)
            print("wrote", out)


if __name__ == "__main__":
    main()
