"""Trains the learned finder on composed frames (compose.py).

    python tools/finder/train.py --art target/finder-art --textures target/real-textures \
        --work target/finder-work --out target/finder [--steps N] [--seed S]

The network marks, on a frame shrunk so its long side is 320 pixels, each
cell of a half-size grid as table, a card's interior, or the edge band
around a card (which also runs between two cards that touch, so that
each card's interior is an island of its own). Its encoder is
EfficientNet-Lite0's stem and blocks 0-7, started from ImageNet's weights
(tools/identifier/backbone.py), so that wood, carpet and cloth are not
new to it; a small decoder brings the encoder's maps at 1/16, 1/8, 1/4
and 1/2 of the frame back to the half-size grid.

Frames are composed afresh for every step from the card art card_art
writes (`--art DIR/train`; `DIR/heldout` holds decks kept out) on real
and made tables: nothing is stored. The run is seeded; checkpoints go to
--work every 100 steps, and a stopped run goes on from the last one.
At the end the network is exported to ONNX (`--out`/finder.onnx).
"""
import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "identifier"))
from backbone import Slice  # noqa: E402
from compose import frame, load_arts, load_textures, seams, targets  # noqa: E402

SIZE = (320, 240)
STRIDE = 2
# The stem and blocks 0-2 keep ImageNet's weights, as the identifier's do.
FROZEN = 3
CLASS_WEIGHTS = [1.0, 1.0, 2.0]
# Where two cards meet, the edge band weighs this much: missed there, two
# touching cards are one island.
SEAM_WEIGHT = 6.0
# The share of frames that are a game's board of small cards, after the
# first cycle of --steps.
BOARDS = 0.5


class SepConv(nn.Module):
    """A depthwise 3x3 and a pointwise 1x1, batch-normed: cheap on one core."""

    def __init__(self, cin, cout):
        super().__init__()
        self.dw = nn.Conv2d(cin, cin, 3, 1, 1, groups=cin, bias=False)
        self.pw = nn.Conv2d(cin, cout, 1, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu6(self.bn(self.pw(self.dw(x))))


class Finder(nn.Module):
    """Frame (N×3×H×W, RGB in [0, 1]) to logits (N×3×H/2×W/2)."""

    def __init__(self):
        super().__init__()
        self.enc = Slice(8)
        # Taps: after block 0 (1/2, 16), 2 (1/4, 24), 4 (1/8, 40), 7 (1/16, 80).
        self.taps = {0: 16, 2: 24, 4: 40, 7: 80}
        self.lat = nn.ModuleDict({str(k): nn.Conv2d(c, w, 1) for (k, c), w in
                                  zip(self.taps.items(), [32, 48, 48, 48])})
        self.up8 = SepConv(48, 48)
        self.up4 = SepConv(48, 32)
        self.up2 = SepConv(32, 24)
        self.head = nn.Conv2d(24, 3, 1)

    def forward(self, x):
        h = self.enc.stem(x)
        feats = {}
        for i, b in enumerate(self.enc._blocks):
            h = b(h)
            if i in self.taps:
                feats[i] = self.lat[str(i)](h)

        def up(t):
            return F.interpolate(t, scale_factor=2.0, mode="nearest")

        d = self.up8(up(feats[7]) + feats[4])
        d = self.up4(up(d) + feats[2])
        d = self.up2(up(d) + feats[0])
        return self.head(d)


def batch(rng, arts, textures, n, boards=0.0):
    """`n` composed frames of one orientation, and their targets; each a
    board of small cards with probability `boards`."""
    size = SIZE if rng.random() < 0.7 else (SIZE[1], SIZE[0])
    xs, ys, ws = [], [], []
    while len(xs) < n:
        img, ids, _ = frame(rng, arts, textures, size=SIZE, boards=boards)
        if img.size != size:
            continue
        xs.append(np.asarray(img, np.float32) / 255.0)
        y = targets(ids, STRIDE)
        ys.append(y)
        w = np.asarray(CLASS_WEIGHTS, np.float32)[y]
        w[seams(ids, STRIDE)] = SEAM_WEIGHT
        ws.append(w)
    x = torch.from_numpy(np.stack(xs)).permute(0, 3, 1, 2).contiguous()
    return x, torch.from_numpy(np.stack(ys)), torch.from_numpy(np.stack(ws))


def freeze(net):
    for p in net.enc._conv_stem.parameters():
        p.requires_grad = False
    for p in net.enc._bn0.parameters():
        p.requires_grad = False
    for b in net.enc._blocks[:FROZEN]:
        for p in b.parameters():
            p.requires_grad = False
    # The encoder's batch norms keep ImageNet's statistics.
    for m in net.enc.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--art", default="target/finder-art")
    ap.add_argument("--textures", default="target/real-textures")
    ap.add_argument("--work", default="target/finder-work")
    ap.add_argument("--out", default="target/finder")
    # One end, or several: "1500,3500" runs a cosine to 0 at step 1500,
    # then goes on down the tail of a cosine that ends at 3500 (a warm
    # restart), so a longer run grows from a shorter one's checkpoint and
    # is still one command from scratch.
    ap.add_argument("--steps", default="1500")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    ends = [int(e) for e in args.steps.split(",")]
    if not ends or ends != sorted(set(ends)) or ends[0] <= 0:
        sys.exit(f"train.py: --steps {args.steps}: want rising step counts, such as 1500 or 1500,3500")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    arts = load_arts(os.path.join(args.art, "train"))
    textures = load_textures(args.textures)
    net = Finder()
    net.enc.load_pretrained()
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    params = [p for p in net.parameters()]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=1e-4)
    ckpt = os.path.join(args.work, "finder.pt")
    start, spent = 0, 0.0
    if os.path.exists(ckpt):
        state = torch.load(ckpt, map_location="cpu", weights_only=False)
        net.load_state_dict(state["net"])
        opt.load_state_dict(state["opt"])
        start, spent = state["step"], state["seconds"]
        print(f"going on from step {start}")
    freeze(net)
    clock = time.time() - spent
    running = None
    for step in range(start, ends[-1]):
        # Each step's frames depend only on the seed and the step.
        rng = np.random.default_rng([args.seed, step])
        end = next(e for e in ends if e > step)
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * step / end))
        for g in opt.param_groups:
            g["lr"] = lr
        # After the first cycle, half the frames are boards of small cards
        # (a curriculum: the layouts it learnt worst once it has learnt
        # cards at all).
        boards = BOARDS if step >= ends[0] else 0.0
        x, y, w = batch(rng, arts, textures, args.batch, boards)
        net.train()
        freeze(net)
        loss = (F.cross_entropy(net(x), y, reduction="none") * w).sum() / w.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        running = loss.item() if running is None else 0.95 * running + 0.05 * loss.item()
        if (step + 1) % 20 == 0:
            print(f"step {step + 1}: loss {running:.4f}, {(time.time() - clock) / 60:.1f} min", flush=True)
        if (step + 1) % 100 == 0 or step + 1 in ends:
            torch.save({"net": net.state_dict(), "opt": opt.state_dict(), "step": step + 1,
                        "seconds": time.time() - clock}, ckpt + ".new")
            os.replace(ckpt + ".new", ckpt)
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, SIZE[1], SIZE[0]), os.path.join(args.out, "finder.onnx"),
                      input_names=["frame"], output_names=["cells"], opset_version=13,
                      dynamic_axes={"frame": {2: "h", 3: "w"}, "cells": {2: "h2", 3: "w2"}}, dynamo=False)
    print(f"trained {ends[-1]} steps in {(time.time() - clock) / 60:.1f} min; "
          f"{sum(p.numel() for p in net.parameters())} parameters")


if __name__ == "__main__":
    main()
