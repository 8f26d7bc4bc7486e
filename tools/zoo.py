#!/usr/bin/python3
"""zoo.py — the FastSA paper's kinds of models as joint graphs, at its sizes.

    tools/zoo.py [--out DIR] [--cost unit|flop] [--only NAME,...] [--list]

Exports every model below with tools/export_torch.py (fake tensors: no data,
seconds each) into DIR (default zoo/), one process per model timed with
/usr/bin/time, and prints a Markdown table: model, export arguments, nodes,
seconds, peak resident set. Sizes are the paper's (Appendix D.5): vision
models at batch 512 and 224x224, text models 128 x 512 tokens, language
models 8 x 2048 tokens (GPT-2 8 x 1024, its context). --cost unit (the
default, the paper's setting) gives every operator cost 1; --cost flop the
FLOP estimates. --list prints the export commands only.
"""
import argparse
import os
import re
import subprocess
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))

# (name, model, export arguments): torchvision names or tools/models.py factories
ZOO = [
    ("resnet18", "resnet18", ["--batch", "512"]),
    ("resnet50", "resnet50", ["--batch", "512"]),
    ("vgg11", "vgg11", ["--batch", "512"]),
    ("densenet121", "densenet121", ["--batch", "512"]),
    ("mobilenet_v3_large", "mobilenet_v3_large", ["--batch", "512"]),
    ("efficientnet_b0", "efficientnet_b0", ["--batch", "512"]),
    ("efficientnet_v2_s", "efficientnet_v2_s", ["--batch", "512"]),
    ("mnasnet1_0", "mnasnet1_0", ["--batch", "512"]),
    ("regnet_y_400mf", "regnet_y_400mf", ["--batch", "512"]),
    ("convnext_tiny", "convnext_tiny", ["--batch", "512"]),
    ("convnext_large", "convnext_large", ["--batch", "512"]),
    ("vit_b_16", "vit_b_16", ["--batch", "512"]),
    ("vit_l_16", "vit_l_16", ["--batch", "512"]),
    ("swin_t", "swin_t", ["--batch", "512"]),
    ("maxvit_t", "maxvit_t", ["--batch", "512"]),
    ("bert_base", "bert_base", ["--batch", "128"]),
    ("distilbert", "distilbert", ["--batch", "128"]),
    ("gpt2_small", "gpt2_small", ["--batch", "8"]),
    ("gpt_neo_125m", "gpt_neo_125m", ["--batch", "8"]),
    ("opt_125m", "opt_125m", ["--batch", "8"]),
    ("opt_350m", "opt_350m", ["--batch", "8"]),
    ("bloom_560m", "bloom_560m", ["--batch", "8"]),
    ("llama_7b", "llama_7b", ["--batch", "8"]),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="zoo")
    ap.add_argument("--cost", default="unit", choices=("unit", "flop"))
    ap.add_argument("--only", help="comma-separated names")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    only = set(a.only.split(",")) if a.only else None
    todo = [z for z in ZOO if not only or z[0] in only]
    if only and len(todo) != len(only):
        ap.error("unknown: %s" % ", ".join(sorted(only - {z[0] for z in ZOO})))
    os.makedirs(a.out, exist_ok=True)
    print("| model | export | nodes | seconds | peak RSS |")
    print("|---|---|---|---|---|")
    bad = 0
    for name, model, args in todo:
        out = os.path.join(a.out, "%s-%s.json" % (name, a.cost))
        cmd = [sys.executable, os.path.join(TOOLS, "export_torch.py"), model] + args + \
            ["--cost", a.cost, "-o", out]
        shown = "`%s %s`" % (model, " ".join(args))
        if a.list:
            print("| %s | %s | | | |" % (name, " ".join(cmd)))
            continue
        r = subprocess.run(["/usr/bin/time", "-f", "TIME %e %M"] + cmd, capture_output=True,
                           text=True)
        m = re.search(r"TIME ([0-9.]+) ([0-9]+)", r.stderr)
        nodes = re.search(r": ([0-9]+) nodes ->", r.stderr)
        if r.returncode or not m or not nodes:
            bad += 1
            why = [x for x in r.stderr.splitlines() if x.startswith("export_torch")]
            print("| %s | %s | failed: %s | | |" % (name, shown, (why or ["?"])[-1][:120]))
        else:
            print("| %s | %s | %s | %.1f | %.0f MiB |" % (name, shown, nodes.group(1),
                                                        float(m.group(1)),
                                                        int(m.group(2)) / 1024))
        sys.stdout.flush()
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
