#!/usr/bin/python3
"""joint_report.py — the joint-graph table of docs/models.md, measured.

    tools/joint_report.py [--remat build/remat] [--out DIR] [MODEL ...]

For each model (the sizes below: small batches and inputs, so that the CPU
replay stays short), exports the joint graph, reads its node count and
baseline peak with `remat info`, replays the no-recomputation plan and one
recomputing plan (the first of kusumoto-approx, chen, greedy, twremat that
plans at 90 % of the baseline) with `remat replay --backend torch`, and
prints one markdown row per model: nodes, baseline peak, and for both
plans the simulated and measured peaks and whether the gradients equal
plain autograd's.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
# model, batch, export options
MODELS = [
    ("resnet18", 2, ["--input-shape", "3,64,64"]), ("resnet50", 1, ["--input-shape", "3,64,64"]),
    ("vgg11", 1, ["--input-shape", "3,64,64"]), ("densenet121", 1, ["--input-shape", "3,64,64"]),
    ("mobilenet_v3_large", 2, ["--input-shape", "3,64,64"]),
    ("efficientnet_b0", 2, ["--input-shape", "3,64,64"]),
    ("convnext_tiny", 1, ["--input-shape", "3,64,64"]),
    ("vit_b_16", 1, ["--model-arg", "image_size=64"]), ("swin_t", 1, ["--input-shape", "3,64,64"]),
    ("gpt2", 1, []), ("transformer", 1, []), ("lstm64", 2, []), ("unet", 1, []),
    ("siamese", 2, []), ("tiny_cnn", 2, []), ("tiny_gpt", 2, []),
]
# the recomputing plan: the lowest peak kusumoto-approx finds, else chen's
# default segments, else twremat at 95 %: the first that recomputes
RECOMPUTE = [("kusumoto-approx", ["-O", "strategy=memory"], "lowest peak"),
             ("chen", [], "auto segments"), ("twremat", ["-b", "95%"], "95 %")]


def sh(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def replay(remat, graph, plan):
    rc, out, err = sh([remat, "replay", graph, plan, "--backend", "torch", "-o", plan + ".m"])
    if rc != 0 and not os.path.exists(plan + ".m"):
        return None, err.strip().splitlines()[-1] if err.strip() else "rc %d" % rc
    r = json.load(open(plan + ".m"))
    return r, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--remat", default="build/remat")
    ap.add_argument("--out", default="/tmp/remat-joint-report")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    print("| model | batch, input | joint nodes | baseline peak | noremat: measured vs simulated "
          "| recomputing plan | its simulated peak | measured | gradients |")
    print("|---|---|---|---|---|---|---|---|---|")
    for spec, batch, opts in MODELS:
        if a.models and spec not in a.models:
            continue
        t0 = time.time()
        g = os.path.join(a.out, spec + ".json")
        rc, _, err = sh([PY, os.path.join(TOOLS, "export_torch.py"), spec, "--batch", str(batch)]
                        + opts + ["-o", g])
        if rc:
            print("| %s | export failed: %s |" % (spec, err.strip().splitlines()[-1]))
            continue
        _, info, _ = sh([a.remat, "info", g])
        nodes = re.search(r"^nodes +(\d+)", info, re.M).group(1)
        peak = int(re.search(r"^baseline  peak (\d+)", info, re.M).group(1))
        base = os.path.join(a.out, spec + ".noremat.json")
        sh([a.remat, "solve", g, "-s", "noremat", "-o", base])
        r0, e0 = replay(a.remat, g, base)
        cells = [spec, "b%d %s" % (batch, " ".join(opts) or "default"), nodes, str(peak)]
        if r0:
            cells.append("%d vs %d (%+.2f %%), gradients %s" % (
                r0["measured_peak"], r0["simulated_peak"],
                100.0 * (r0["measured_peak"] / r0["simulated_peak"] - 1),
                "equal" if r0["gradients"]["match"] else "DIFFER"))
        else:
            cells.append("replay failed: " + e0)
        for s, opt, what in RECOMPUTE:
            p = os.path.join(a.out, "%s.%s.json" % (spec, s))
            rc, _, _ = sh([a.remat, "solve", g, "-s", s] + opt + ["-o", p])
            if rc == 0 and json.load(open(p))["cost"] > json.load(open(p))["baseline_cost"]:
                break
        else:
            cells += ["none recomputes", "", "", ""]
            print("| " + " | ".join(cells) + " |", flush=True)
            continue
        r1, e1 = replay(a.remat, g, p)
        if r1:
            cells += ["%s (%s)" % (s, what), "%d (%.1f %%)" % (
                r1["simulated_peak"], 100.0 * r1["simulated_peak"] / peak), "%d (%+.2f %%)" % (
                r1["measured_peak"], 100.0 * (r1["measured_peak"] / r1["simulated_peak"] - 1)),
                "equal (max diff %.2g)" % r1["gradients"]["max_abs_diff"]
                if r1["gradients"]["match"] else "DIFFER (%.2g)" % r1["gradients"]["max_abs_diff"]]
        else:
            cells += ["%s (%s)" % (s, what), "", "replay failed: " + e1, ""]
        print("| " + " | ".join(cells) + " |  <!-- %.0f s -->" % (time.time() - t0), flush=True)


if __name__ == "__main__":
    main()
