# test_models.sh — every real-model sample loads as a valid training graph
# with the node count and baseline figures docs/models.md documents; with
# Debian's python3 and torch present, the exporter reproduces a sample
# exactly and refuses an untraceable model with one line naming it.
. tests/cli/lib.sh
n=0
grep '^| models/' docs/models.md | while IFS='|' read -r _ file nodes peak cost _; do
    file=$(echo $file); nodes=$(echo $nodes); peak=$(echo $peak); cost=$(echo $cost)
    run $REMAT info "samples/$file"
    [ "$rc" -eq 0 ] || { echo "FAIL: $file does not load: $(cat "$T/err")"; exit 1; }
    grep -q "^nodes     $nodes " "$T/out" || { echo "FAIL: $file: node count is not $nodes"; exit 1; }
    grep -q "^baseline  peak $peak .*; cost $cost$" "$T/out" || { echo "FAIL: $file: baseline is not $peak/$cost: $(grep baseline "$T/out")"; exit 1; }
    grep -q "bwd [1-9]" "$T/out" || { echo "FAIL: $file has no backward nodes"; exit 1; }
done || fails=$((fails+1))
[ "$(grep -c '^| models/' docs/models.md)" -ge 9 ] || fail "fewer than 9 documented samples"
PY=/usr/bin/python3
if $PY -c "import torch, torchvision" 2>/dev/null; then
    run $PY tools/export_torch.py resnet18 --level layer --batch 8 -o "$T/r18.json"
    expect_rc 0 "export resnet18"
    cmp -s "$T/r18.json" samples/models/resnet18.json || fail "exporter output differs from samples/models/resnet18.json"
    run $PY tools/export_torch.py siamese --level layer --batch 2 --check -o "$T/s.json"
    expect_rc 0 "export siamese with --check"
    expect_err "kept for backward [0-9]+ bytes, autograd saved [0-9]+ bytes \([+-]0\.[0-9]%\)" "fidelity within 1 %"
    cat >"$T/dyn.py" <<'PY'
import torch
class Dyn(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x
def make():
    return Dyn(), (4,)
PY
    run $PY tools/export_torch.py "$T/dyn.py:make" --level layer -o "$T/d.json"
    expect_rc 1 "untraceable model"
    expect_err "cannot trace .*dyn.py:make.* at dyn.py:4 in forward" "names the failing line"
    expect_one_line_err "untraceable"
    run $PY tools/export_torch.py nosuchmodel -o "$T/x.json"
    expect_rc 1 "unknown model"
    expect_err "unknown model 'nosuchmodel'" "unknown model message"
    if $PY -c "import onnx" 2>/dev/null; then
        $PY -c "
import torch, torchvision
m = torchvision.models.resnet18(weights=None); m.train()
torch.onnx.export(m, torch.randn(1, 3, 224, 224), '$T/r18.onnx', training=torch.onnx.TrainingMode.TRAINING,
                  do_constant_folding=False, dynamic_axes={'input': {0: 'batch'}}, input_names=['input'])
" 2>/dev/null
        run $PY tools/export_onnx.py "$T/r18.onnx" --batch 8 -o "$T/r18o.json"
        expect_rc 0 "export_onnx"
        run $REMAT info "$T/r18o.json"
        expect_out "fwd 69, loss 1, bwd 69" "onnx export has resnet18's 69 operators"
        expect_out "^baseline  peak 2250[0-9]{5} " "onnx baseline peak within 0.1 % of the fx export"
    fi
else
    echo "(python3-torch not installed: exporter checks skipped)"
fi
finish
