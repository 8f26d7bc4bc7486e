"""Model factories for the sample shelf that torchvision does not provide.

Each factory returns (module, example_input_shape_without_batch). They are
small on purpose: samples/ keeps graphs of a few hundred KiB, and the
shapes, not trained weights, are what the graphs need.
"""
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
