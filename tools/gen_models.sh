#!/bin/sh
# gen_models.sh — regenerate samples/models/ from the exporters (Debian's
# python3 with python3-torch and python3-torchvision).
set -e
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
for spec in "resnet18 8" "resnet50 8" "vgg11 8" "densenet121 8" "mobilenet_v3_large 8" \
            "unet 4" "gpt2 4" "lstm64 32" "siamese 16"; do
    set -- $spec
    $PY tools/export_torch.py "$1" --level layer --batch "$2" --check -o "samples/models/$1.json"
done
