"""Model factories that torchvision does not provide.

Each factory returns (module, example_input_shape_without_batch). The first
ones are small on purpose: samples/ keeps graphs of a few hundred KiB, and
the shapes, not trained weights, are what the graphs need. The text and
language models at the end have the shapes of the FastSA paper's (BERT,
DistilBERT, GPT-2, GPT-Neo, OPT, BLOOM, LLaMA-7B), with keyword arguments for
smaller variants. FACTORIES lists the names export_torch.py accepts.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class UNet(nn.Module):
    """A 4-level U-Net (Ronneberger et al.) with skip connections."""

    def __init__(self, ch=(32, 64, 128, 256), in_ch=3, out_ch=2):
        super().__init__()
        self.downs = nn.ModuleList()
        c = in_ch
        for w in ch:
            self.downs.append(self._block(c, w))
            c = w
        self.mid = self._block(ch[-1], ch[-1] * 2)
        self.ups = nn.ModuleList()
        self.upblocks = nn.ModuleList()
        c = ch[-1] * 2
        for w in reversed(ch):
            self.ups.append(nn.ConvTranspose2d(c, w, 2, stride=2))
            self.upblocks.append(self._block(2 * w, w))
            c = w
        self.head = nn.Conv2d(c, out_ch, 1)

    @staticmethod
    def _block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                             nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU())

    def forward(self, x):
        skips = []
        for d in self.downs:
            x = d(x)
            skips.append(x)
            x = F.max_pool2d(x, 2)
        x = self.mid(x)
        for up, blk, s in zip(self.ups, self.upblocks, reversed(skips)):
            x = up(x)
            x = blk(torch.cat([x, s], dim=1))
        return self.head(x)


class Block(nn.Module):
    """GPT-2 style pre-norm transformer block."""

    def __init__(self, d, heads, ctx):
        super().__init__()
        self.h, self.d, self.t = heads, d, ctx
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)

    def forward(self, x):
        # fixed dims (no unpacking of traced shapes) keep it traceable by torch.fx
        t, d, h = self.t, self.d, self.h
        qkv = self.qkv(self.ln1(x)).split(d, dim=2)
        q = qkv[0].reshape(-1, t, h, d // h).transpose(1, 2)
        k = qkv[1].reshape(-1, t, h, d // h).transpose(1, 2)
        v = qkv[2].reshape(-1, t, h, d // h).transpose(1, 2)
        att = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / (d // h) ** 0.5)
        att = torch.softmax(att, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(-1, t, d)
        x = x + self.proj(y)
        return x + self.out(F.gelu(self.fc(self.ln2(x))))


class GPT(nn.Module):
    """12 blocks, d=256, 8 heads, context 128 (GPT-2's structure, smaller width)."""

    def __init__(self, layers=12, d=256, heads=8, vocab=1024, ctx=128):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, ctx, d))
        self.blocks = nn.Sequential(*[Block(d, heads, ctx) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)

    def forward(self, idx):
        return self.head(self.ln(self.blocks(self.emb(idx) + self.pos)))


class LSTM64(nn.Module):
    """One LSTM layer unrolled over 64 steps (Echo's setting), gates written out."""

    def __init__(self, inp=256, hid=256, steps=64):
        super().__init__()
        self.steps, self.hid = steps, hid
        self.wx = nn.Linear(inp, 4 * hid)
        self.wh = nn.Linear(hid, 4 * hid, bias=False)
        self.out = nn.Linear(hid, 10)

    def forward(self, x):
        b = x.shape[0]
        h = x.new_zeros(b, self.hid)
        c = x.new_zeros(b, self.hid)
        for t in range(self.steps):
            g = self.wx(x[:, t]) + self.wh(h)
            gates = g.chunk(4, dim=1)
            c = torch.sigmoid(gates[1]) * c + torch.sigmoid(gates[0]) * torch.tanh(gates[2])
            h = torch.sigmoid(gates[3]) * torch.tanh(c)
        return self.out(h)


class Siamese(nn.Module):
    """Two towers (an image CNN and a text MLP) joined at a similarity head:
    Beaumont et al.'s join setting."""

    def __init__(self):
        super().__init__()
        layers = []
        c = 3
        for w in (32, 64, 64, 128, 128, 128):
            layers += [nn.Conv2d(c, w, 3, padding=1), nn.ReLU()]
            c = w
        self.img = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 256))
        self.txt = nn.Sequential(nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                 nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 256))

    def forward(self, image, text):
        a = self.img(image)
        b = self.txt(text)
        return (a * b).sum(dim=1)


class TinyCNN(nn.Module):
    """A few conv-bn-relu layers, max pooling and a residual add: the small
    convolutional model the tests export and replay."""

    def __init__(self, w=8):
        super().__init__()
        self.c1 = nn.Conv2d(3, w, 3, padding=1)
        self.b1 = nn.BatchNorm2d(w)
        self.c2 = nn.Conv2d(w, w, 3, padding=1)
        self.b2 = nn.BatchNorm2d(w)
        self.c3 = nn.Conv2d(w, 2 * w, 3, padding=1)
        self.head = nn.Linear(2 * w, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = x + F.relu(self.b2(self.c2(x)))
        x = F.relu(self.c3(x)).mean(dim=(2, 3))
        return self.head(x)


class Encoder(nn.Module):
    """nn.TransformerEncoder (4 post-norm layers, width 256, 8 heads,
    dropout 0.1): the module torch.fx cannot trace."""

    def __init__(self, layers=4, d=256, heads=8):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=4 * d, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.head = nn.Linear(d, 10)

    def forward(self, x):
        return self.head(self.enc(x))


def tiny_cnn():
    return TinyCNN(), (3, 16, 16)


def tiny_gpt():
    """Two GPT blocks, width 32, context 16, with dropout 0.1 after the
    embedding (a random operator the replay must reproduce)."""
    return TinyGPT(), ("long", 16, 64)


class TinyGPT(GPT):
    def __init__(self):
        super().__init__(layers=2, d=32, heads=4, vocab=64, ctx=16)
        self.drop = nn.Dropout(0.1)

    def forward(self, idx):
        return self.head(self.ln(self.blocks(self.drop(self.emb(idx) + self.pos))))


def transformer():
    return Encoder(), (64, 256)


def unet():
    return UNet(), (3, 64, 64)


def gpt2():
    return GPT(), ("long", 128, 1024)


def lstm64():
    return LSTM64(), (64, 256)


def siamese():
    return Siamese(), ((3, 64, 64), (512,))


# ---- text and language models shaped like the FastSA paper's (Appendix D.5) ----
# Plain PyTorch, no weights: the shapes of Hugging Face's bert-base-uncased,
# distilbert-base-uncased, gpt2, gpt-neo-125m, opt-125m/350m, bloom-560m and
# LlamaConfig() (LLaMA-7B) with sequence-classification heads (2 labels, as the
# paper traced them). Every factory takes layers, d, heads, seq (and vocab...)
# so smaller variants exist: `--model-arg layers=2 --model-arg seq=64`. The
# input is token ids ("long", seq, vocab); the batch comes from --batch.


def _attend(q, k, v, scale=True, mask=None, bias=None, drop=None):
    """Scaled dot-product attention written out (as transformers 4.28 does):
    q, k, v (B, H, T, hd); mask (1, 1, T, T) of allowed positions; bias
    added to the scores (ALiBi)."""
    att = torch.matmul(q, k.transpose(-1, -2))
    if scale:
        att = att / math.sqrt(q.shape[-1])
    if bias is not None:
        att = att + bias
    if mask is not None:
        att = att.masked_fill(~mask, torch.finfo(att.dtype).min)
    att = torch.softmax(att, dim=-1)
    if drop is not None:
        att = drop(att)
    return torch.matmul(att, v)


def _heads(x, h):
    b, t, d = x.shape
    return x.view(b, t, h, d // h).transpose(1, 2)


def _merge(x):
    b, h, t, hd = x.shape
    return x.transpose(1, 2).reshape(b, t, h * hd)


def _causal(n):
    return torch.tril(torch.ones(n, n, dtype=torch.bool)).view(1, 1, n, n)


class _PostNormLayer(nn.Module):
    """BERT's and DistilBERT's encoder layer: attention and feed-forward,
    each with dropout, a residual add and a LayerNorm after it."""

    def __init__(self, d, heads, ffn, p):
        super().__init__()
        self.h = heads
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)
        self.drop, self.adrop = nn.Dropout(p), nn.Dropout(p)

    def forward(self, x):
        a = _attend(_heads(self.q(x), self.h), _heads(self.k(x), self.h),
                    _heads(self.v(x), self.h), drop=self.adrop)
        x = self.ln1(x + self.drop(self.o(_merge(a))))
        return self.ln2(x + self.drop(self.fc2(F.gelu(self.fc1(x)))))


class BertEncoder(nn.Module):
    """bert-base-uncased for sequence classification (12 layers, d 768, 12
    heads, feed-forward 3072, dropout 0.1, vocabulary 30522, pooler and
    classifier); distil=True is distilbert-base-uncased (6 layers, no token
    types, pre-classifier instead of the pooler)."""

    def __init__(self, layers=12, d=768, heads=12, ffn=None, seq=512, vocab=30522, labels=2,
                 p=0.1, distil=False):
        super().__init__()
        self.distil = distil
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max(seq, 512), d)
        self.register_buffer("pos_ids", torch.arange(max(seq, 512)).view(1, -1), persistent=False)
        if not distil:
            self.types = nn.Embedding(2, d)
            self.register_buffer("type_ids", torch.zeros(1, max(seq, 512), dtype=torch.long),
                                 persistent=False)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.drop = nn.Dropout(p)
        self.layers = nn.ModuleList(_PostNormLayer(d, heads, ffn or 4 * d, p)
                                    for _ in range(layers))
        self.pool = nn.Linear(d, d)
        self.head = nn.Linear(d, labels)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.word(ids) + self.pos(self.pos_ids[:, :t])
        if not self.distil:
            x = x + self.types(self.type_ids[:, :t])
        x = self.drop(self.ln(x))
        for layer in self.layers:
            x = layer(x)
        c = x[:, 0]
        c = F.relu(self.pool(c)) if self.distil else torch.tanh(self.pool(c))
        return self.head(self.drop(c))


class _PreNormBlock(nn.Module):
    """A decoder block with LayerNorms before attention and MLP (GPT-2,
    GPT-Neo, OPT-125m, BLOOM), or after them (post=True: OPT-350m)."""

    def __init__(self, d, heads, ffn, p=0.0, act="gelu_tanh", fused=True, bias=True, scale=True,
                 post=False, eps=1e-5):
        super().__init__()
        self.h, self.fused, self.scale, self.post = heads, fused, scale, post
        self.ln1, self.ln2 = nn.LayerNorm(d, eps=eps), nn.LayerNorm(d, eps=eps)
        if fused:
            self.qkv = nn.Linear(d, 3 * d)
        else:
            self.q, self.k, self.v = (nn.Linear(d, d, bias=bias) for _ in range(3))
        self.o = nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, ffn), nn.Linear(ffn, d)
        self.act = act
        self.drop = nn.Dropout(p) if p else None
        self.adrop = nn.Dropout(p) if p and act == "gelu_tanh" else None  # GPT-2's attention dropout

    def forward(self, x, mask, bias=None):
        y = x if self.post else self.ln1(x)
        if self.fused:
            q, k, v = self.qkv(y).split(x.shape[-1], dim=2)
        else:
            q, k, v = self.q(y), self.k(y), self.v(y)
        a = self.o(_merge(_attend(_heads(q, self.h), _heads(k, self.h), _heads(v, self.h),
                                  self.scale, mask, bias, self.adrop)))
        x = x + (self.drop(a) if self.drop else a)
        if self.post:
            x = self.ln1(x)
        y = x if self.post else self.ln2(x)
        y = self.fc1(y)
        y = F.relu(y) if self.act == "relu" else F.gelu(y, approximate="tanh")
        y = self.fc2(y)
        x = x + (self.drop(y) if self.drop else y)
        return self.ln2(x) if self.post else x


class Decoder(nn.Module):
    """A causal decoder with a sequence-classification head on the last
    token (2 labels, no bias). kind: "gpt2" (learned positions, fused qkv,
    dropout 0.1), "gpt_neo" (separate q/k/v without bias, unscaled scores,
    every other layer attends to the last `window` tokens only), "opt"
    (positions offset by 2, ReLU MLP, dropout 0.1, embeddings of proj
    width projected in and out; post=True puts the LayerNorms after), "bloom"
    (ALiBi biases instead of positions, a LayerNorm on the embeddings)."""

    def __init__(self, kind="gpt2", layers=12, d=768, heads=12, ffn=None, seq=1024, vocab=50257,
                 labels=2, window=256, proj=None, post=False):
        super().__init__()
        self.kind = kind
        p = 0.1 if kind in ("gpt2", "opt") else 0.0
        proj = proj or d
        self.embed = nn.Embedding(vocab, proj)
        self.proj_in = nn.Linear(proj, d, bias=False) if proj != d else None
        self.proj_out = nn.Linear(d, proj, bias=False) if proj != d else None
        if kind != "bloom":
            self.pos = nn.Embedding(seq + (2 if kind == "opt" else 0), d)
            self.register_buffer("pos_ids", torch.arange(seq).view(1, -1) +
                                 (2 if kind == "opt" else 0), persistent=False)
        else:
            self.ln_emb = nn.LayerNorm(d)
            n = 2 ** math.floor(math.log2(heads))
            slopes = [2 ** (-8 * (i + 1) / n) for i in range(n)]
            slopes += [2 ** (-4 * (2 * i + 1) / n) for i in range(heads - n)]
            self.register_buffer("alibi", (torch.tensor(slopes).view(heads, 1, 1) *
                                           torch.arange(seq).view(1, 1, seq)).view(1, heads, 1, seq),
                                 persistent=False)
        self.drop = nn.Dropout(p) if p else None
        self.register_buffer("mask", _causal(seq), persistent=False)
        if kind == "gpt_neo":
            i = torch.arange(seq)
            local = (i.view(-1, 1) - i.view(1, -1)) < window
            self.register_buffer("local", self.mask & local.view(1, 1, seq, seq), persistent=False)
        act = "relu" if kind == "opt" else "gelu_tanh"
        self.blocks = nn.ModuleList(
            _PreNormBlock(d, heads, ffn or 4 * d, p, act, fused=kind in ("gpt2", "bloom"),
                          bias=kind != "gpt_neo", scale=kind != "gpt_neo", post=post)
            for _ in range(layers))
        self.ln_f = nn.LayerNorm(d) if not post else None
        self.head = nn.Linear(proj, labels, bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.embed(ids)
        if self.proj_in is not None:
            x = self.proj_in(x)
        bias = None
        if self.kind == "bloom":
            x = self.ln_emb(x)
            bias = self.alibi[:, :, :, :t]
        else:
            x = x + self.pos(self.pos_ids[:, :t])
        if self.drop is not None:
            x = self.drop(x)
        mask = self.mask[:, :, :t, :t]
        for i, b in enumerate(self.blocks):
            m = self.local[:, :, :t, :t] if self.kind == "gpt_neo" and i % 2 else mask
            x = b(x, m, bias)
        if self.ln_f is not None:
            x = self.ln_f(x)
        if self.proj_out is not None:
            x = self.proj_out(x)
        return self.head(x)[:, -1]


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.eps = eps

    def forward(self, x):
        v = x.float().pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(v + self.eps)).to(x.dtype)


def _rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat((-x[..., h:], x[..., :h]), dim=-1)


class _LlamaBlock(nn.Module):
    def __init__(self, d, heads, ffn):
        super().__init__()
        self.h = heads
        self.norm1, self.norm2 = RMSNorm(d), RMSNorm(d)
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.gate = nn.Linear(d, ffn, bias=False)
        self.up = nn.Linear(d, ffn, bias=False)
        self.down = nn.Linear(ffn, d, bias=False)

    def forward(self, x, mask, cos, sin):
        y = self.norm1(x)
        q, k, v = _heads(self.q(y), self.h), _heads(self.k(y), self.h), _heads(self.v(y), self.h)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        x = x + self.o(_merge(_attend(q, k, v, mask=mask)))
        y = self.norm2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class Llama(nn.Module):
    """LlamaConfig()'s defaults (LLaMA-7B): 32 layers, d 4096, 32 heads,
    SwiGLU MLP of 11008, RMSNorm, rotary position embeddings, vocabulary
    32000, no biases; a sequence-classification head on the last token."""

    def __init__(self, layers=32, d=4096, heads=32, ffn=11008, seq=2048, vocab=32000, labels=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(_LlamaBlock(d, heads, ffn) for _ in range(layers))
        self.norm = RMSNorm(d)
        self.head = nn.Linear(d, labels, bias=False)
        hd = d // heads
        inv = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
        f = torch.arange(seq).float().view(-1, 1) * inv.view(1, -1)
        emb = torch.cat((f, f), dim=-1)
        self.register_buffer("cos", emb.cos().view(1, 1, seq, hd), persistent=False)
        self.register_buffer("sin", emb.sin().view(1, 1, seq, hd), persistent=False)
        self.register_buffer("mask", _causal(seq), persistent=False)

    def forward(self, ids):
        t = ids.shape[1]
        x = self.embed(ids)
        mask, cos, sin = self.mask[:, :, :t, :t], self.cos[:, :, :t], self.sin[:, :, :t]
        for b in self.blocks:
            x = b(x, mask, cos, sin)
        return self.head(self.norm(x))[:, -1]


def bert_base(layers=12, d=768, heads=12, seq=512, vocab=30522):
    return BertEncoder(layers, d, heads, seq=seq, vocab=vocab), ("long", seq, vocab)


def distilbert(layers=6, d=768, heads=12, seq=512, vocab=30522):
    return BertEncoder(layers, d, heads, seq=seq, vocab=vocab, distil=True), ("long", seq, vocab)


def gpt2_small(layers=12, d=768, heads=12, seq=1024, vocab=50257):
    return Decoder("gpt2", layers, d, heads, seq=seq, vocab=vocab), ("long", seq, vocab)


def gpt_neo_125m(layers=12, d=768, heads=12, seq=2048, vocab=50257):
    return Decoder("gpt_neo", layers, d, heads, seq=seq, vocab=vocab), ("long", seq, vocab)


def opt_125m(layers=12, d=768, heads=12, seq=2048, vocab=50272):
    return Decoder("opt", layers, d, heads, seq=seq, vocab=vocab), ("long", seq, vocab)


def opt_350m(layers=24, d=1024, heads=16, seq=2048, vocab=50272):
    return Decoder("opt", layers, d, heads, seq=seq, vocab=vocab, proj=512, post=True), \
        ("long", seq, vocab)


def bloom_560m(layers=24, d=1024, heads=16, seq=2048, vocab=250880):
    return Decoder("bloom", layers, d, heads, seq=seq, vocab=vocab), ("long", seq, vocab)


def llama_7b(layers=32, d=4096, heads=32, ffn=11008, seq=2048, vocab=32000):
    return Llama(layers, d, heads, ffn, seq, vocab), ("long", seq, vocab)


# every factory export_torch.py knows by name
FACTORIES = ["unet", "gpt2", "lstm64", "siamese", "transformer", "tiny_cnn", "tiny_gpt",
             "bert_base", "distilbert", "gpt2_small", "gpt_neo_125m", "opt_125m", "opt_350m",
             "bloom_560m", "llama_7b"]
