#!/bin/sh
# paper_models.sh DIR — export the models of FastSA's large-model experiment
# (Imanishi et al. 2023, §3.1 and Appendix D, Tables 3-5) as joint training
# graphs into DIR (a cache under the build directory: the graphs are tens of
# MiB in all and stay out of the repository), and write DIR/models.txt, one
# line per model: "file|kind|the paper's model it stands for|export args".
#
# Vision models: torchvision at batch 512 (the paper's timm models at 512);
# text models: tools/models.py at batch 128 x 512 tokens; language models:
# batch 8 x 2048 tokens (GPT-2: 1024), as in Appendix D.5. Costs are FLOP
# estimates; bench_paper derives the unit-cost graph (1 per operator, the
# paper's setting) from the same file. Existing files are kept, so only the
# first run exports (about 20 s of CPU a model, fake tensors), until the
# exporter's code changes (exporter.stamp).
#
# paper_models.sh DIR FILE ARGS... — export one more graph the same way,
# as DIR/FILE.json (bench_fastsa's 8K-node LLaMA shape); not listed.
set -e
DIR=${1:?usage: paper_models.sh DIR [FILE ARGS...]}
cd "$(dirname "$0")/../.."
PY=${PYTHON:-/usr/bin/python3}
mkdir -p "$DIR"

# A cache made by another version of the exporter is exported again: its
# graphs may count differently (when backward operators with an
# output_mask came to run by parts, resnet50's graph went from 885 nodes
# to 832 and its plans' costs with it, while a kept cache went on giving
# the old figures).
STAMP=$(cat tools/export_torch.py tools/torch_joint.py tools/remat_graph.py tools/models.py | cksum)
if [ "$(cat "$DIR/exporter.stamp" 2>/dev/null)" != "$STAMP" ]; then
    rm -f "$DIR"/*.json "$DIR"/*.log "$DIR/models.txt"
    echo "$STAMP" >"$DIR/exporter.stamp"
fi

# export FILE ARGS: DIR/FILE.json from tools/export_torch.py ARGS, unless it
# is there already; 1 when the export failed
export_one() {
    file=$1
    shift
    [ -s "$DIR/$file.json" ] && return 0
    if nice -n 10 "$PY" tools/export_torch.py "$@" --trace fake --cost flop \
        -o "$DIR/$file.json.part" >"$DIR/$file.log" 2>&1; then
        mv "$DIR/$file.json.part" "$DIR/$file.json"
    else
        echo "paper_models: $file: export failed (see $DIR/$file.log)" >&2
        rm -f "$DIR/$file.json.part"
        return 1
    fi
}

if [ $# -gt 1 ]; then
    shift
    export_one "$@"
    exit
fi
LIST="$DIR/models.txt.part"
: >"$LIST"
# file | kind | paper's model | export arguments
while IFS='|' read -r file kind paper args; do
    [ -n "$file" ] || continue
    echo "$file|$kind|$paper|$args" >>"$LIST"
    # shellcheck disable=SC2086
    export_one "$file" $args || true
done <<'EOF'
vgg11|vision|VGG11 (vgg11)|vgg11 --batch 512
resnet18|vision|ResNet18 (resnet18)|resnet18 --batch 512
resnet50|vision|(ResNet-50)|resnet50 --batch 512
mobilenet_v3_large|vision|MobileNetV3 (mobilenetv3_large_100)|mobilenet_v3_large --batch 512
efficientnet_b0|vision|EfficientNet (efficientnet_b0)|efficientnet_b0 --batch 512
mnasnet1_0|vision|(MnasNet)|mnasnet1_0 --batch 512
regnet_y_400mf|vision|(RegNet)|regnet_y_400mf --batch 512
convnext_tiny|vision|ConvNeXt (convnext_tiny)|convnext_tiny --batch 512
convnext_large|vision|ConvNeXt V2 (convnextv2_large)|convnext_large --batch 512
vit_b_16|vision|DeiT III, BEiT (base, patch 16)|vit_b_16 --batch 512
vit_l_16|vision|ViT (vit_large_patch16_224)|vit_l_16 --batch 512
swin_t|vision|XCiT, EVA-02 (windowed attention stand-in)|swin_t --batch 512
maxvit_t|vision|CoAtNet (conv + attention hybrid)|maxvit_t --batch 512
bert_base|text|BERT (bert-base-uncased)|bert_base --batch 128
distilbert|text|DistilBERT (distilbert-base-uncased)|distilbert --batch 128
gpt2_small|lm|GPT2 (gpt2)|gpt2_small --batch 8
gpt_neo_125m|lm|GPT Neo 125M|gpt_neo_125m --batch 8
gpt_neo_2_7b|lm|GPT Neo 2.7B|gpt_neo_125m --batch 8 --model-arg layers=32 --model-arg d=2560 --model-arg heads=20
opt_125m|lm|(OPT 125M)|opt_125m --batch 8
opt_350m|lm|OPT 350M|opt_350m --batch 8
opt_6_7b|lm|OPT 6.7B|opt_125m --batch 8 --model-arg layers=32 --model-arg d=4096 --model-arg heads=32
bloom_560m|lm|BLOOM 560M|bloom_560m --batch 8
bloom_3b|lm|BLOOM 3B|bloom_560m --batch 8 --model-arg layers=30 --model-arg d=2560 --model-arg heads=32
llama_7b|lm|LLaMA 7B|llama_7b --batch 8
EOF
mv "$LIST" "$DIR/models.txt"
