"""Cuts each labelled card of a real-photo set out by its box and lays it,
at its own size, alone on a plain frame: so that finding is not in
question and the figure measures identification.

    python3 tools/real-photos/cut_cards.py ../shared/real-photos/pinochle OUT

writes OUT/<photo>_<k>.png (one card each; the name keeps the photo's, so
`score.py` tells webcam frames from phone shots) and OUT/labels.json in
the set's own format. Then, from OUT:

    arbiter recognise --deck DECK --json *.png > reads.jsonl
    python3 ../shared/real-photos/score.py labels.json reads.jsonl

The photos are read where they lie and nothing of them enters the
project: OUT belongs outside the repository (or under target/).
Only numpy and Pillow are needed.
"""
import json
import os
import sys

from PIL import Image

# The plain frame: a mid-dark neutral table, the smallest a webcam gives,
# grown where a card's box is larger (with a margin of half the box).
FRAME_W, FRAME_H = 960, 540
TABLE = (70, 72, 74)


def main(set_dir, out):
    labels = json.load(open(os.path.join(set_dir, "labels.json")))
    os.makedirs(out, exist_ok=True)
    cut = {}
    for rel, cards in sorted(labels.items()):
        photo = None
        for k, card in enumerate(cards):
            if not card.get("token"):
                continue
            if photo is None:
                photo = Image.open(os.path.join(set_dir, rel)).convert("RGB")
            x0, y0, x1, y1 = card["box"]
            crop = photo.crop((x0, y0, x1, y1))
            w, h = crop.size
            fw, fh = max(FRAME_W, 2 * w), max(FRAME_H, 2 * h)
            frame = Image.new("RGB", (fw, fh), TABLE)
            px, py = (fw - w) // 2, (fh - h) // 2
            frame.paste(crop, (px, py))
            name = f"{os.path.splitext(os.path.basename(rel))[0]}_{k}.png"
            frame.save(os.path.join(out, name))
            cut[name] = [dict(card, box=[px, py, px + w, py + h])]
    json.dump(cut, open(os.path.join(out, "labels.json"), "w"), indent=1)
    print(f"{len(cut)} cards cut to {out}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
