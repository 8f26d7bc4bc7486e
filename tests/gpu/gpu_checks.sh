#!/bin/bash
# gpu_checks.sh — the checks that need a GPU, in one short run.
#
#   tests/gpu/gpu_checks.sh BIN_DIR WORK_DIR [GRAPHS_DIR]
#
# BIN_DIR holds remat and remat-cuda (built with nvcc); WORK_DIR gets every
# log, graph, plan and measurement. The Python tools run on the python3
# first on PATH (it must see the GPU through torch). GRAPHS_DIR may hold
# paper-model graphs (llama_7b.json) for the CUDA replay of a large graph.
#
# 1. remat-cuda: `remat replay --backend cuda` of the bundled samples and
#    (when given) an 8K-node graph, measured against simulated.
# 2. The torch replay and training with a plan on CUDA: each model exported
#    here by tools/export_torch.py (the graph must come from this torch, so
#    that the replay's own trace matches it), solved by remat, replayed with
#    the model's operators (`remat replay --backend torch`) and trained
#    (tools/train_with_plan.py --device cuda); then the replay's workspaces
#    written into the graph (remat calibrate), a plan for the same bytes on
#    it, and that plan replayed.
# Each check is one line "ok NAME" or "FAIL NAME (rc N)" with the tail of its
# log; the exit status is the number of failed checks. The checks are not
# part of `make test` (CI has no GPU).
B=${1:?usage: gpu_checks.sh BIN_DIR WORK_DIR [GRAPHS_DIR]}
W=${2:?usage: gpu_checks.sh BIN_DIR WORK_DIR [GRAPHS_DIR]}
G=${3:-}
mkdir -p "$W"
B=$(cd "$B" && pwd)
R=$B/remat
export REMAT_TOOLS=$PWD/tools REMAT_PYTHON=${REMAT_PYTHON:-$(command -v python3)} PYTHONUNBUFFERED=1
fails=0

# check NAME TIMEOUT CMD...: run CMD with its output in W/NAME.log
check() {
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$W/$name.log" 2>&1
    local rc=$?
    local dt=$((SECONDS - t0))
    if [ $rc = 0 ]; then
        echo "ok   $name (${dt}s)"
    else
        echo "FAIL $name (rc $rc, ${dt}s): $*"
        fails=$((fails + 1))
    fi
    tail -n "${TAIL:-6}" "$W/$name.log" | cut -c1-300 | sed 's/^/     /'
    return $rc
}

echo "== machine"
nvidia-smi -L 2>&1 | head -2
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__,
    "cuda", torch.version.cuda, "available", torch.cuda.is_available())' 2>&1

echo "== 1. remat-cuda"
check solve_chain32 30 "$R" solve samples/chain32.json --budget 26 -o "$W/chain32.plan.json"
check cuda_chain32 60 "$R" replay samples/chain32.json "$W/chain32.plan.json" --backend cuda \
    --fit 10 -o "$W/chain32.cuda.json"
for pct in 100 70; do
    check solve_resnet18_$pct 60 "$R" solve samples/models/resnet18.json --budget $pct% \
        -o "$W/resnet18_$pct.plan.json"
    check cuda_resnet18_$pct 60 "$R" replay samples/models/resnet18.json \
        "$W/resnet18_$pct.plan.json" --backend cuda --fit 50 -o "$W/resnet18_$pct.cuda.json"
done
if [ -n "$G" ] && [ -f "$G/llama_7b.json" ]; then
    check solve_llama_7b_25 120 "$R" solve "$G/llama_7b.json" --budget 25% -O time_limit=10 \
        -o "$W/llama_7b_25.plan.json"
    # 4,462 steps of tensors up to gigabytes: the pool's fragmentation
    for fit in 80 60; do
        check cuda_llama_7b_25_fit$fit 120 "$R" replay "$G/llama_7b.json" \
            "$W/llama_7b_25.plan.json" --backend cuda --fit $fit -o "$W/llama_7b_25_fit$fit.cuda.json"
    done
fi

echo "== 2. torch on CUDA"
# a graph from another torch: the replay refuses it, naming the difference
TAIL=3 check solve_tiny_cnn_old 30 "$R" solve samples/models/joint/tiny_cnn.json --budget 75% \
    -o "$W/tiny_cnn_old.plan.json"
TAIL=3 check torch_tiny_cnn_old 120 "$R" replay samples/models/joint/tiny_cnn.json \
    "$W/tiny_cnn_old.plan.json" --backend torch -o "$W/tiny_cnn_old.torch.json"

# model batch budget: exported here, solved, replayed, trained
while read -r model batch budget; do
    n=${model}_b$batch
    # a fake trace first (any batch in seconds), else real CPU tensors
    check export_$n 240 python3 tools/export_torch.py "$model" --batch "$batch" \
        -o "$W/$n.json" ||
        check export_real_$n 240 python3 tools/export_torch.py "$model" --batch "$batch" \
            --trace real -o "$W/$n.json" || continue
    check solve_$n 90 "$R" solve "$W/$n.json" --budget "$budget" -O time_limit=8 \
        -o "$W/$n.plan.json" || continue
    check torch_$n 240 "$R" replay "$W/$n.json" "$W/$n.plan.json" --backend torch \
        -o "$W/$n.torch.json"
    TAIL=5 check train_$n 240 python3 tools/train_with_plan.py "$W/$n.json" "$W/$n.plan.json" \
        --steps 6 --device cuda -o "$W/$n.train.json"
    # calibrated: the replay's workspaces into the graph, a plan for the
    # same bytes on it, replayed: its measured peak should be its simulated one
    b=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['budget'])" "$W/$n.plan.json")
    check calibrate_$n 60 "$R" calibrate "$W/$n.json" "$W/$n.plan.json" "$W/$n.torch.json" \
        -o "$W/$n.cal.json" &&
        check solve_cal_$n 90 "$R" solve "$W/$n.cal.json" --budget "$b" -O time_limit=8 \
            -o "$W/$n.cal.plan.json" &&
        check torch_cal_$n 240 "$R" replay "$W/$n.cal.json" "$W/$n.cal.plan.json" --backend torch \
            -o "$W/$n.cal.torch.json"
    # the same with ATen's kernels on both sides: whether a gradient
    # difference is cuDNN's batch norm against ATen's (docs/gpu.md)
    grep -q '"match":false' "$W/$n.torch.json" 2>/dev/null &&
        check torch_nocudnn_$n 300 python3 tools/replay_torch.py "$W/$n.json" "$W/$n.plan.json" \
            --device cuda --no-cudnn -o "$W/$n.nocudnn.json"
done <<EOF
${GPU_MODELS:-tiny_cnn 8 70%
tiny_gpt 8 50%
resnet18 64 60%
gpt2 16 30%
resnet50 128 50%
resnet50 256 25%}
EOF
echo "== $fails failed"
exit $fails
