"""Cuts the card-free regions of a real-photo set into table textures for
training (`identifier_data --textures DIR`): real wood, carpet, cloth and
stone under a real camera's light, noise and JPEG, which no renderer makes.

    python3 tools/real-photos/textures.py ../shared/real-photos/pinochle OUT [--half seen|all]

writes OUT/<photo>_<k>.png, squares that touch no labelled box (each box
grown by a fifth of its size, so no card's edge or shadow comes along),
and OUT/textures.json: for each, the width in its pixels of a card lying
on that table (the photo's median labelled card), so that a texture is laid
at the scale of the cards drawn on it.

Only card-free regions are cut: the set's cards are never trained on (the
deck must stay unseen, README of the set). `--half seen` (the default)
takes only the photos whose name hashes even, so that the other half's
tables stay unseen too and the real-photo figures can be given for tables
seen and unseen in training (`--half unseen` lists the other half's
photos). OUT belongs under target/: nothing of the photos enters the
project. Only Pillow is needed.
"""
import argparse
import hashlib
import json
import os
import statistics

from PIL import Image

# A texture is this many card widths on a side (a table's grain, weave or
# tiles at the scale the frame shows them), at most this many from a photo.
SIDE_CARDS = 1.25
PER_PHOTO = 6
GROW = 0.2


def seen(rel):
    """Whether the photo's table may be trained on (its name hashes even)."""
    return hashlib.sha256(os.path.basename(rel).encode()).digest()[0] % 2 == 0


def card_free_squares(size, boxes, side):
    """Squares of `side` px on a grid of half steps that meet no box."""
    w, h = size
    step = max(1, side // 2)
    out = []
    for y in range(0, h - side + 1, step):
        for x in range(0, w - side + 1, step):
            if all(x + side <= b[0] or x >= b[2] or y + side <= b[1] or y >= b[3] for b in boxes):
                out.append((x, y))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("set")
    ap.add_argument("out")
    ap.add_argument("--half", choices=["seen", "unseen", "all"], default="seen")
    args = ap.parse_args()
    labels = json.load(open(os.path.join(args.set, "labels.json")))
    if args.half == "unseen":
        for rel in sorted(labels):
            if not seen(rel):
                print(rel)
        return
    os.makedirs(args.out, exist_ok=True)
    index = {}
    for rel, cards in sorted(labels.items()):
        if args.half == "seen" and not seen(rel):
            continue
        if not cards:
            continue
        widths = [min(c["box"][2] - c["box"][0], c["box"][3] - c["box"][1]) for c in cards]
        card_w = statistics.median(widths)
        boxes = []
        for c in cards:
            x0, y0, x1, y1 = c["box"]
            gx, gy = GROW * (x1 - x0), GROW * (y1 - y0)
            boxes.append((x0 - gx, y0 - gy, x1 + gx, y1 + gy))
        photo = Image.open(os.path.join(args.set, rel)).convert("RGB")
        side = int(SIDE_CARDS * card_w)
        squares = card_free_squares(photo.size, boxes, side)
        # Spread over the photo: every n-th of the free squares.
        stride = max(1, len(squares) // PER_PHOTO)
        stem = os.path.splitext(os.path.basename(rel))[0]
        for k, (x, y) in enumerate(squares[::stride][:PER_PHOTO]):
            name = f"{stem}_{k}.png"
            photo.crop((x, y, x + side, y + side)).save(os.path.join(args.out, name))
            index[name] = {"card_width": card_w}
    json.dump(index, open(os.path.join(args.out, "textures.json"), "w"), indent=1, sort_keys=True)
    print(f"{len(index)} textures from {len({n.rsplit('_', 1)[0] for n in index})} photos in {args.out}")


if __name__ == "__main__":
    main()
