#!/usr/bin/python3
"""fidelity.py — bytes a joint graph keeps for the backward against what
autograd saves, for every model the exporter supports.

    tools/fidelity.py [--quick] [MODEL ...]

For each model (small batches and inputs: this checks the graph's structure,
not a size), the joint graph is traced and analysed as export_torch.py does,
and one eager training step of the same model runs under
torch.autograd.graph.saved_tensors_hooks. Prints one line per model and
exits 1 when any differs by more than 2 %. --quick checks a few small models
(the command-line test runs that).
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_joint  # noqa: E402

# (model, batch, input shape, constructor arguments): every model the
# exporter is documented to handle (docs/models.md), at small sizes
MODELS = [
    ("resnet18", 2, "3,64,64", {}), ("resnet50", 1, "3,64,64", {}), ("vgg11", 1, "3,64,64", {}),
    ("densenet121", 1, "3,64,64", {}), ("mobilenet_v3_large", 2, "3,64,64", {}),
    ("efficientnet_b0", 2, "3,64,64", {}), ("convnext_tiny", 1, "3,64,64", {}),
    ("vit_b_16", 1, None, {"image_size": 64}), ("swin_t", 1, "3,64,64", {}),
    ("gpt2", 1, None, {}), ("transformer", 1, None, {}), ("lstm64", 2, None, {}),
    ("unet", 1, None, {}), ("siamese", 2, None, {}), ("tiny_cnn", 2, None, {}),
    ("tiny_gpt", 2, None, {}),
]
QUICK = ["tiny_cnn", "tiny_gpt", "resnet18"]
LIMIT = 2.0  # percent


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    want = a.models or (QUICK if a.quick else [m[0] for m in MODELS])
    bad = 0
    for spec, batch, shape, kw in MODELS:
        if spec not in want:
            continue
        t0 = time.time()
        model, example = torch_joint.load_model(spec, batch, shape, model_args=kw)
        gm, names = torch_joint.capture(model, example)
        j = torch_joint.analyse(gm, names, torch_joint.primal_values(model, example))
        kept = torch_joint.kept_for_backward(j.nodes)
        saved = torch_joint.autograd_saved_bytes(model, example)
        diff = 100.0 * (kept - saved) / saved if saved else 0.0
        ok = abs(diff) <= LIMIT
        bad += not ok
        print("%-20s b%d %5d nodes  kept %11d  autograd saved %11d  %+6.2f%%  %s  %.1fs"
              % (spec, batch, len(j.nodes), kept, saved, diff, "ok" if ok else "OVER 2%",
                 time.time() - t0), flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
