"""Measures the identifier alone on real photographs: each labelled card
cut from its photo, straightened at a card-shaped rectangle inscribed in
its labelled box, named against the deck's reference photos.

    python tools/identifier/real_photos.py SET FACES [--checkpoint CKPT] [--thresholds TOML] [--failures PNG]

SET is a real-photo set with a labels.json (../shared/real-photos/pinochle);
FACES the deck's reference faces as `deck learn` straightens them
(`cargo run --release --example card_crops -- --out DIR --faces
SET/faces`). The boxes are axis-aligned, so a tilted card's box holds
table too: the card is taken as the rectangle of a card's proportions
that touches all four sides of the box, tilted either way (or upright, or
turned a quarter), and the best of the four is kept. A card only partly in
its box (under another, or off the frame) is not such a rectangle, which is
most of what is left unnamed. This separates identification from finding;
`arbiter recognise` on `tools/real-photos/cut_cards.py`'s frames measures
both.

The photos are read where they lie and nothing of them is kept: they are
for measuring, never for training.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "real-photos"))
from textures import seen  # noqa: E402  (whose tables training may have used)
from backbone import Slice
from train import BLOCKS, embed, named

ASPECT = 3.5 / 2.5
INSET = 0.04
W, H = 64, 96


def to_tensor(im):
    return torch.from_numpy(np.array(im)).permute(2, 0, 1).float() / 255.0


def straightened(im, centre, a, b, angle):
    """The a×b rectangle turned by `angle` about `centre`, 4% inset, as
    W×H (PIL's QUAD: upper left, lower left, lower right, upper right)."""
    c, s = math.cos(angle), math.sin(angle)
    k = 1 - 2 * INSET
    corners = [(-a / 2, -b / 2), (-a / 2, b / 2), (a / 2, b / 2), (a / 2, -b / 2)]
    quad = [(centre[0] + k * (u * c - v * s), centre[1] + k * (u * s + v * c)) for u, v in corners]
    return to_tensor(im.transform((W, H), Image.QUAD, [x for p in quad for x in p], Image.BILINEAR))


def inscribed(w, h):
    """The short side and tilt of a card that touches all four sides of a
    w×h box."""
    best = min(np.linspace(0, math.pi / 2, 181),
               key=lambda t: abs((math.cos(t) + ASPECT * math.sin(t)) / (math.sin(t) + ASPECT * math.cos(t)) - w / h))
    return h / (math.sin(best) + ASPECT * math.cos(best)), best


def thresholds(path):
    text = open(path).read().split("[thresholds]")[1]
    return {k.strip(): float(v) for k, v in (line.split("=") for line in text.splitlines() if "=" in line)}


@torch.no_grad()
def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("faces")
    ap.add_argument("--checkpoint", help="train.py's checkpoint (default: ImageNet's weights, untuned)")
    ap.add_argument("--thresholds", help="an identifier.toml whose thresholds to name by")
    ap.add_argument("--failures", help="a PNG sheet of the boxes whose nearest kind is wrong")
    args = ap.parse_args()
    torch.set_num_threads(2)
    net = Slice(BLOCKS).load_pretrained().eval()
    if args.checkpoint:
        net.load_state_dict(torch.load(args.checkpoint, weights_only=False)["model"])
    files = sorted(f for f in os.listdir(args.faces) if f.endswith(".png"))
    tokens = ["??" if f == "back.png" else f[:-4] for f in files]

    def face(f):
        im = Image.open(os.path.join(args.faces, f)).convert("RGB")
        w, h = im.size
        return to_tensor(im.crop((w * INSET, h * INSET, w * (1 - INSET), h * (1 - INSET))).resize((W, H), Image.BILINEAR))

    refs = torch.stack([face(f) for f in files])
    refs = torch.stack([embed(net, refs), embed(net, torch.flip(refs, dims=(2, 3)))])
    t = thresholds(args.thresholds) if args.thresholds else None
    labels = json.load(open(os.path.join(args.set, "labels.json")))
    # By camera, and by whether the photo's table was among training's
    # textures (tools/real-photos/textures.py's half).
    tally = {s: {"cards": 0, "nearest": 0, "named": 0, "wrong": 0}
             for s in ("webcam", "phone", "table seen in training", "table unseen")}
    failures = []
    for rel, cards in sorted(labels.items()):
        im = None
        for card in cards:
            if not card.get("token"):
                continue
            if im is None:
                im = Image.open(os.path.join(args.set, rel)).convert("RGB")
            x0, y0, x1, y1 = card["box"]
            a, tilt = inscribed(x1 - x0, y1 - y0)
            centre = ((x0 + x1) / 2, (y0 + y1) / 2)
            x = torch.stack([straightened(im, centre, a, a * ASPECT, t_)
                             for t_ in (tilt, -tilt, tilt - math.pi / 2, math.pi / 2 - tilt)])
            sims = torch.einsum("nd,okd->nok", embed(net, x), refs).max(1).values
            best = sims.max(1).values.argmax()
            top = sims[best].topk(2)
            nearest = tokens[top.indices[0]]
            right = nearest == card["token"]
            # The naming rule's back is kind 0 (train.py's order).
            kind = np.array([0 if nearest == "??" else 1])
            gate = t and named(kind, top.values[:1].numpy(), (top.values[:1] - top.values[1:]).numpy(), t)[0]
            for key in ("webcam" if os.path.basename(rel).startswith("cam_image") else "phone",
                        "table seen in training" if seen(rel) else "table unseen"):
                sub = tally[key]
                sub["cards"] += 1
                sub["nearest"] += right
                if gate:
                    sub["named" if right else "wrong"] += 1
            if not right:
                failures.append(im.crop((x0, y0, x1, y1)).resize((96, 128)))
    for name, s in tally.items():
        line = f"{name}: nearest right {s['nearest']}/{s['cards']} ({100 * s['nearest'] / max(1, s['cards']):.1f}%)"
        if t:
            line += f", named right {s['named']}, named wrong {s['wrong']}"
        print(line)
    if args.failures and failures:
        sheet = Image.new("RGB", (96 * 14, 128 * math.ceil(len(failures) / 14)))
        for i, f in enumerate(failures):
            sheet.paste(f, (96 * (i % 14), 128 * (i // 14)))
        sheet.save(args.failures)
        print(f"{len(failures)} failures drawn to {args.failures}", file=sys.stderr)


if __name__ == "__main__":
    main()
