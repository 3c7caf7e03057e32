"""Measures the learned finder on its own: the cards it finds, as boxes.

    python tools/finder/measure.py --model target/finder/finder.onnx \
        [--real ../shared/real-photos/pinochle] [--composed N] [--sheet PNG]

`--real SET`: every labelled card of a real-photo set (labels.json, each
card's whole box) is found when a card the finder marks has a box that
overlaps it by IoU 0.5 or more; a card marked where no labelled card lies
is a phantom. By subset (webcam frames, phone shots; the photos whose
card-free regions training may have used as tables, and the others). The photos are read
where they lie and nothing of them is kept.

`--composed N`: N frames composed as training composes them, but from
the held-out decks' art (card_art's `heldout/`) and another seed: each
card at least half visible is found by the same test.

A frame is shrunk so its long side is 320 pixels, as
pipeline/learned_finder.rs does; cells marked interior form islands
(4-connected), islands of fewer than MIN_CELLS cells are dropped, an
island joined where a seam was missed is cut apart by eroding it (`split`,
its specks of edge filled first), and each piece grown by the edge band is
a card. (Dropping pieces not of a card's proportions was tried: on
composed frames it halved the phantoms but lost a fifth of the cards,
those half hidden and the smallest.)
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import onnxruntime as ort
from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "real-photos"))
from compose import frame, load_arts, load_textures  # noqa: E402
from textures import seen  # noqa: E402  (whose tables training may have used)

LONG = 320
STRIDE = 2
MIN_CELLS = 12  # as pipeline/learned_finder.rs
SPLIT_STEPS = 3  # as pipeline/learned_finder.rs
HOLE_CELLS = 4  # as pipeline/learned_finder.rs


def islands(mask):
    """4-connected islands of a boolean grid: a label grid (0 none)."""
    h, w = mask.shape
    lab = np.zeros((h, w), np.int32)
    n = 0
    for y0 in range(h):
        for x0 in range(w):
            if not mask[y0, x0] or lab[y0, x0]:
                continue
            n += 1
            stack = [(y0, x0)]
            lab[y0, x0] = n
            while stack:
                y, x = stack.pop()
                for yy, xx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= yy < h and 0 <= xx < w and mask[yy, xx] and not lab[yy, xx]:
                        lab[yy, xx] = n
                        stack.append((yy, xx))
    return lab, n


def eroded(mask):
    """`mask` less every cell with an unset four-neighbour."""
    m = mask.copy()
    m[1:, :] &= mask[:-1, :]
    m[:-1, :] &= mask[1:, :]
    m[:, 1:] &= mask[:, :-1]
    m[:, :-1] &= mask[:, 1:]
    m[0, :] = m[-1, :] = False
    m[:, 0] = m[:, -1] = False
    return m


def split(cells, shape):
    """An island cut where the network missed part of a seam: eroded
    until it falls apart into pieces of a card's size (at most SPLIT_STEPS
    cells), each piece then the island's cells nearest it. One island
    when it never falls apart."""
    h, w = shape
    mask = np.zeros((h + 2, w + 2), bool)
    mask[cells[0] + 1, cells[1] + 1] = True
    # Small holes (specks of print marked as edge) filled first.
    hole, nh = islands(~mask)
    for i in range(1, nh + 1):
        ys, xs = np.nonzero(hole == i)
        touches = ys.min() == 0 or xs.min() == 0 or ys.max() == h + 1 or xs.max() == w + 1
        if not touches and len(ys) < HOLE_CELLS:
            mask[ys, xs] = True
    m = mask
    for _ in range(SPLIT_STEPS):
        m = eroded(m)
        lab, n = islands(m)
        sizes = {i: (lab == i).sum() for i in range(1, n + 1)}
        pieces = [i for i in sizes if sizes[i] >= MIN_CELLS // 2]
        # Pieces of a card's size each: a card whose print the network
        # marked in part as edge falls apart into one large piece and
        # crumbs.
        if len(pieces) >= 2 and min(sizes[i] for i in pieces) >= 0.25 * max(sizes.values()):
            # Each cell of the island goes to the nearest piece.
            ys, xs = cells
            best = np.full(len(ys), np.inf)
            owner = np.zeros(len(ys), int)
            for k, i in enumerate(pieces):
                py, px = np.nonzero(lab == i)
                py, px = py - 1, px - 1
                d = ((ys[:, None] - py[None]) ** 2 + (xs[:, None] - px[None]) ** 2).min(1)
                closer = d < best
                best[closer] = d[closer]
                owner[closer] = k
            return [(ys[owner == k], xs[owner == k]) for k in range(len(pieces))]
        if not m.any():
            break
    return [cells]


def find(sess, img):
    """The boxes (x0, y0, x1, y1, in `img`'s pixels) of the cards found."""
    s = LONG / max(img.size)
    w, h = round(img.width * s / 16) * 16, round(img.height * s / 16) * 16
    x = np.asarray(img.convert("RGB").resize((w, h), Image.BILINEAR), np.float32)[None] / 255.0
    logits = sess.run(None, {"frame": x.transpose(0, 3, 1, 2)})[0][0]
    cls = logits.argmax(0)
    lab, n = islands(cls == 1)
    boxes = []
    sx, sy = img.width / w, img.height / h
    pieces = []
    for i in range(1, n + 1):
        cells = np.nonzero(lab == i)
        if len(cells[0]) < MIN_CELLS:
            continue
        pieces.extend(split(cells, lab.shape) if SPLIT_STEPS else [cells])
    for ys, xs in pieces:
        # Grown by the edge band (one cell each way) and taken to pixels.
        x0, x1 = (xs.min() - 1) * STRIDE, (xs.max() + 2) * STRIDE
        y0, y1 = (ys.min() - 1) * STRIDE, (ys.max() + 2) * STRIDE
        boxes.append((max(0, x0 * sx), max(0, y0 * sy), min(img.width, x1 * sx), min(img.height, y1 * sy)))
    return boxes, cls


def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def match(found, truth):
    """Greedy matching by IoU >= 0.5: (cards found, phantoms)."""
    pairs = sorted(((iou(f, t), i, j) for i, f in enumerate(found) for j, t in enumerate(truth)), reverse=True)
    used_f, used_t = set(), set()
    for v, i, j in pairs:
        if v < 0.5:
            break
        if i in used_f or j in used_t:
            continue
        used_f.add(i)
        used_t.add(j)
    return len(used_t), len(found) - len(used_f)


def session(path):
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    return ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])


def real(sess, root, sheet):
    labels = json.load(open(os.path.join(root, "labels.json")))
    stats = {}
    tiles = []
    times = []
    for rel, cards in sorted(labels.items()):
        img = Image.open(os.path.join(root, rel)).convert("RGB")
        t = time.perf_counter()
        found, cls = find(sess, img)
        times.append(time.perf_counter() - t)
        truth = [c["box"] for c in cards]
        got, phantoms = match(found, truth)
        for sub in ("webcam" if os.path.basename(rel).startswith("cam_image") else "phone",
                    "table seen in training" if seen(rel) else "table unseen"):
            s = stats.setdefault(sub, [0, 0, 0, 0])
            s[0] += got
            s[1] += len(truth)
            s[2] += phantoms
            s[3] += 1
        if sheet and len(tiles) < 24:
            im = img.copy()
            d = ImageDraw.Draw(im)
            for b in truth:
                d.rectangle(b, outline=(0, 255, 0), width=2)
            for b in found:
                d.rectangle(b, outline=(255, 0, 255), width=2)
            im.thumbnail((320, 320))
            tiles.append(im)
    for sub, (got, n, ph, frames) in stats.items():
        print(f"real {sub}: {got}/{n} cards found ({100 * got / n:.1f}%), {ph} phantoms in {frames} frames "
              f"({ph / frames:.2f} a frame)")
    print(f"time a frame (onnxruntime, one thread, with the islands in Python): "
          f"median {1000 * np.median(times):.0f} ms")
    if sheet:
        cols = 6
        out = Image.new("RGB", (320 * cols, 320 * ((len(tiles) + cols - 1) // cols)), "grey")
        for i, t in enumerate(tiles):
            out.paste(t, ((i % cols) * 320, (i // cols) * 320))
        out.save(sheet)


def composed(sess, art, textures, n, seed):
    arts = load_arts(os.path.join(art, "heldout"))
    tex = load_textures(textures)
    got = total = ph = 0
    for k in range(n):
        rng = np.random.default_rng([seed, 10_000_000 + k])
        img, ids, corners = frame(rng, arts, tex)
        found, _ = find(sess, img)
        truth = []
        for i, q in enumerate(corners, start=1):
            visible = (ids == i).sum()
            q = np.array(q)
            area = 0.5 * abs(np.dot(q[:, 0], np.roll(q[:, 1], 1)) - np.dot(q[:, 1], np.roll(q[:, 0], 1)))
            if area > 0 and visible >= 0.5 * area:
                ys, xs = np.nonzero(ids == i)
                truth.append((xs.min(), ys.min(), xs.max() + 1, ys.max() + 1))
        g, p = match(found, truth)
        got += g
        total += len(truth)
        ph += p
    print(f"composed, held-out decks: {got}/{total} cards found ({100 * got / max(total, 1):.1f}%), "
          f"{ph} phantoms in {n} frames")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="target/finder/finder.onnx")
    ap.add_argument("--real", default=None)
    ap.add_argument("--composed", type=int, default=0)
    ap.add_argument("--art", default="target/finder-art")
    ap.add_argument("--textures", default="target/real-textures")
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--sheet", default=None)
    ap.add_argument("--min-cells", type=int, default=MIN_CELLS)
    ap.add_argument("--split", type=int, default=SPLIT_STEPS)
    args = ap.parse_args()
    globals()["MIN_CELLS"] = args.min_cells
    globals()["SPLIT_STEPS"] = args.split
    sess = session(args.model)
    if args.real:
        real(sess, args.real, args.sheet)
    if args.composed:
        composed(sess, args.art, args.textures, args.composed, args.seed)


if __name__ == "__main__":
    main()
