"""Training frames for the learned finder: card art laid on tables.

`frame(rng, arts, textures)` composes one frame at the network's size and
its truth: for every pixel, which card shows there (0: none), and each
card's four corners. Cards are laid as players lay them: scattered at
any angle, apart or overlapping; in a board's rows and columns with
gaps or touching (the layouts arbiter's games make); a neat block of
four. The table is a real one (card-free regions of real photos,
tools/real-photos/textures.py, never their cards) or a made one (plain,
noise, stripes, checks, wood-like grain, paper white). The camera adds
its tilt, light (a gradient, a lamp's glare, white balance, exposure),
shadows, blur, noise and JPEG; now and then a hand or sleeve covers part
of the table.

`targets(ids, stride)` turns the card map into what the network learns:
per cell of the output grid, background, a card's interior, or the edge
band around each card (also between two cards that touch), which keeps
touching cards apart; `seams` marks where two cards meet.
"""
import io
import math
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

ASPECT = 1.4  # a card's height over its width, roughly; the art's own is kept


def load_arts(dir):
    """Every card image under `dir` (card_art's PNGs), decoded once."""
    names = sorted(f for f in os.listdir(dir) if f.endswith(".png"))
    return [Image.open(os.path.join(dir, f)).convert("RGB") for f in names]


def load_textures(dir):
    """Real tables (tools/real-photos/textures.py), or none."""
    if not dir or not os.path.isdir(dir):
        return []
    return [Image.open(os.path.join(dir, f)).convert("RGB")
            for f in sorted(os.listdir(dir)) if f.endswith(".png")]


def made_table(rng, w, h):
    """A table drawn from scratch: a colour, and a pattern over it."""
    base = rng.uniform(0, 255, 3)
    if rng.random() < 0.15:  # paper white, cream or grey: pale as a card
        base = np.full(3, rng.uniform(170, 250)) + rng.uniform(-15, 15, 3)
    a = np.ones((h, w, 3), np.float32) * base
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    kind = rng.integers(0, 5)
    if kind == 1:  # stripes or checks
        period = rng.uniform(4, 40)
        ang = rng.uniform(0, math.pi)
        s = np.sin((xx * math.cos(ang) + yy * math.sin(ang)) * 2 * math.pi / period)
        if rng.random() < 0.5:
            s = s * np.sin((-xx * math.sin(ang) + yy * math.cos(ang)) * 2 * math.pi / period)
        a += (s > 0)[..., None] * rng.uniform(-90, 90, 3)
    elif kind == 2:  # grain: wood-like streaks
        ang = rng.uniform(0, math.pi)
        u = xx * math.cos(ang) + yy * math.sin(ang)
        v = -xx * math.sin(ang) + yy * math.cos(ang)
        s = np.sin(u / rng.uniform(2, 8) + 3 * np.sin(v / rng.uniform(20, 80)))
        a += s[..., None] * rng.uniform(5, 40)
    elif kind == 3:  # blotches
        small = rng.uniform(-1, 1, (max(2, h // 16), max(2, w // 16), 3)).astype(np.float32)
        big = np.asarray(Image.fromarray(((small + 1) * 127).astype(np.uint8)).resize((w, h), Image.BICUBIC), np.float32) / 127 - 1
        a += big * rng.uniform(10, 60)
    a += rng.normal(0, rng.uniform(0, 12), a.shape)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def real_table(rng, textures, w, h):
    t = textures[rng.integers(len(textures))]
    s = rng.uniform(0.5, 2.0) * max(w / t.width, h / t.height)
    t = t.resize((max(w, int(t.width * s) + 1), max(h, int(t.height * s) + 1)), Image.BILINEAR)
    if rng.random() < 0.5:
        t = t.transpose(Image.FLIP_LEFT_RIGHT)
    x0 = rng.integers(0, t.width - w + 1)
    y0 = rng.integers(0, t.height - h + 1)
    return t.crop((x0, y0, x0 + w, y0 + h))


def rounded(w, h, r):
    m = Image.new("L", (w, h), 0)
    ImageDraw.Draw(m).rounded_rectangle((0, 0, w - 1, h - 1), radius=r, fill=255)
    return m


def placements(rng, w, h, boards=0.0):
    """Where the cards lie: (centre, width, angle) each, by a layout a
    table shows. With probability `boards`, a whole game's board: up to
    12×9 small cards (9 to 20 pixels wide), touching or nearly, some
    cells empty; the layout the network finds hardest (a board of 50 px
    cards in a 1280×720 frame comes out as one mass of edge band)."""
    if boards and rng.random() < boards:
        card_w = math.exp(rng.uniform(math.log(9), math.log(20)))
        cols, rows = rng.integers(4, 13), rng.integers(3, 10)
        gap = 0.0 if rng.random() < 0.3 else rng.uniform(0.02, 0.25)
        return grid(rng, w, h, card_w, cols, rows, gap, empty=0.15, middle=0.25)
    card_w = math.exp(rng.uniform(math.log(10), math.log(min(w, h) * 0.45)))
    layout = rng.choice(["scatter", "grid", "block"], p=[0.45, 0.4, 0.15])
    out = []
    if layout == "scatter":
        n = rng.integers(1, max(2, int(min(14, 0.5 * w * h / (card_w * card_w * ASPECT)))) + 1)
        for _ in range(n):
            c = (rng.uniform(-0.1, 1.1) * w, rng.uniform(-0.1, 1.1) * h)
            out.append((c, card_w * rng.uniform(0.9, 1.1), rng.uniform(0, 2 * math.pi)))
    else:
        cols, rows = (2, 2) if layout == "block" else (rng.integers(1, 7), rng.integers(1, 6))
        gap = 0.0 if layout == "block" or rng.random() < 0.3 else rng.uniform(0.01, 0.4)
        out = grid(rng, w, h, card_w, cols, rows, gap, empty=0.15 if layout == "grid" else 0.0)
    return out


def grid(rng, w, h, card_w, cols, rows, gap, empty, middle=0.1):
    """Cards in rows and columns, turned as one, each cell empty with
    probability `empty`, the grid's middle at least `middle` of the frame
    in from its edges."""
    ang = rng.uniform(0, 2 * math.pi) if rng.random() < 0.5 else rng.normal(0, 0.1)
    pitch = (card_w * (1 + gap), card_w * ASPECT * (1 + gap))
    origin = (rng.uniform(middle, 1 - middle) * w, rng.uniform(middle, 1 - middle) * h)
    ca, sa = math.cos(ang), math.sin(ang)
    out = []
    for r in range(rows):
        for c in range(cols):
            if empty and rng.random() < empty:
                continue
            u = (c - (cols - 1) / 2) * pitch[0] + rng.normal(0, 0.02 * card_w)
            v = (r - (rows - 1) / 2) * pitch[1] + rng.normal(0, 0.02 * card_w)
            centre = (origin[0] + u * ca - v * sa, origin[1] + u * sa + v * ca)
            out.append((centre, card_w, ang + rng.normal(0, 0.03)))
    return out


def frame(rng, arts, textures, size=(320, 240), boards=0.0):
    """One frame (PIL RGB, `size`), the card under each pixel (0: none;
    i: the i-th card, painted in order), and each card's corners (in
    order around the card, in pixels); a board of small cards with
    probability `boards` ([`placements`])."""
    # Landscape mostly (webcams), upright now and then (phones).
    w, h = size if rng.random() < 0.7 else (size[1], size[0])
    # Draw at twice the size, for edges as a camera sees them.
    k = 2
    W, H = w * k, h * k
    table = real_table(rng, textures, W, H) if textures and rng.random() < 0.5 else made_table(rng, W, H)
    img = table.copy()
    ids = Image.new("I", (W, H), 0)
    corners = []
    shade = Image.new("L", (W, H), 0)
    for i, (c, cw, ang) in enumerate(placements(rng, w, h, boards), start=1):
        art = arts[rng.integers(len(arts))]
        cw2 = max(6, int(cw * k))
        ch2 = max(8, int(cw2 * art.height / art.width))
        face = art.resize((cw2, ch2), Image.BILINEAR)
        mask = rounded(cw2, ch2, max(1, int(0.06 * cw2)))
        deg = math.degrees(ang)
        face_r = face.rotate(deg, resample=Image.BILINEAR, expand=True)
        mask_r = mask.rotate(deg, resample=Image.BILINEAR, expand=True)
        x0 = int(c[0] * k - face_r.width / 2)
        y0 = int(c[1] * k - face_r.height / 2)
        # A shadow under the card, a little off.
        if rng.random() < 0.7:
            off = int(rng.uniform(0, 0.06) * cw2)
            shade.paste(mask_r.filter(ImageFilter.GaussianBlur(max(1, 0.04 * cw2))), (x0 + off, y0 + off),
                        mask_r.filter(ImageFilter.GaussianBlur(max(1, 0.04 * cw2))))
        img.paste(face_r, (x0, y0), mask_r)
        hard = mask_r.point(lambda v: 255 if v >= 128 else 0)
        ids.paste(Image.new("I", face_r.size, i), (x0, y0), hard)
        ca, sa = math.cos(-ang), math.sin(-ang)
        q = []
        for u, v in [(-cw2 / 2, -ch2 / 2), (cw2 / 2, -ch2 / 2), (cw2 / 2, ch2 / 2), (-cw2 / 2, ch2 / 2)]:
            q.append(((c[0] * k + u * ca - v * sa) / k, (c[1] * k + u * sa + v * ca) / k))
        corners.append(q)
    # Shadows darken the table only where no card lies over them.
    a = np.asarray(img, np.float32)
    on_table = (np.asarray(ids) == 0)[..., None]
    a = a * (1 - on_table * np.asarray(shade, np.float32)[..., None] / 255 * rng.uniform(0.1, 0.5))
    # A hand or a sleeve now and then: it hides what is under it.
    if rng.random() < 0.15:
        hand = Image.new("L", (W, H), 0)
        d = ImageDraw.Draw(hand)
        edge = rng.integers(4)
        cx, cy = [(rng.uniform(0, W), 0), (W, rng.uniform(0, H)), (rng.uniform(0, W), H), (0, rng.uniform(0, H))][edge]
        r = rng.uniform(0.1, 0.3) * min(W, H)
        d.ellipse((cx - r, cy - 1.6 * r, cx + r, cy + 1.6 * r), fill=255)
        hm = np.asarray(hand.filter(ImageFilter.GaussianBlur(2)), np.float32)[..., None] / 255
        skin = rng.uniform([120, 70, 50], [240, 200, 170]) if rng.random() < 0.7 else rng.uniform(10, 240, 3)
        a = a * (1 - hm) + skin * hm
        ids_a = np.asarray(ids).copy()
        ids_a[hm[..., 0] > 0.5] = 0
        ids = Image.fromarray(ids_a.astype(np.int32), "I")
    # Light: a gradient, a lamp's glare, white balance and exposure.
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    g = 1 + rng.uniform(-0.4, 0.4) * (xx / W - 0.5) + rng.uniform(-0.4, 0.4) * (yy / H - 0.5)
    a = a * g[..., None] * rng.uniform(0.5, 1.3) * rng.uniform(0.8, 1.2, 3)
    if rng.random() < 0.25:
        gx, gy, gr = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0.05, 0.4) * min(W, H)
        a += (np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gr * gr)) * rng.uniform(60, 250))[..., None]
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    # The camera's tilt: a homography of the whole frame.
    ids_img = ids
    if rng.random() < 0.6:
        # The frame shows a quadrilateral of the drawn table, each corner
        # drawn in by up to `t`: no pixel comes from outside it.
        t = rng.uniform(0, 0.12)
        full = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64)
        inward = np.array([[1, 1], [-1, 1], [-1, -1], [1, -1]], np.float64)
        quad = full + inward * rng.uniform(0, t, (4, 2)) * [W, H]
        coeffs = perspective_coeffs(full, quad)  # PIL maps output to input
        img = img.transform((W, H), Image.PERSPECTIVE, coeffs, Image.BILINEAR)
        ids_img = ids.transform((W, H), Image.PERSPECTIVE, coeffs, Image.NEAREST)
        hmat = homography(quad, full)
        corners = [[tuple(apply(hmat, (x * k, y * k)) / k) for x, y in q] for q in corners]
    img = img.resize((w, h), Image.BILINEAR)
    ids_small = ids_img.resize((w, h), Image.NEAREST)
    if rng.random() < 0.5:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.2, 1.2)))
    a = np.asarray(img, np.float32)
    a = a + rng.normal(0, rng.uniform(0, 8), a.shape)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.7:
        b = io.BytesIO()
        img.save(b, "JPEG", quality=int(rng.uniform(35, 95)))
        img = Image.open(b).convert("RGB")
    return img, np.asarray(ids_small, np.int32), corners


def perspective_coeffs(dst, src):
    """PIL's PERSPECTIVE coefficients: the map from output points `dst` to
    input points `src`."""
    m = []
    for (x, y), (u, v) in zip(dst, src):
        m.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        m.append([0, 0, 0, x, y, 1, -v * x, -v * y])
    return np.linalg.solve(np.array(m, np.float64), np.array(src, np.float64).reshape(8)).tolist()


def homography(src, dst):
    """The 3x3 map from `src` points to `dst` points."""
    c = perspective_coeffs(src, dst)  # maps src (as output) to dst
    return np.array(c + [1.0]).reshape(3, 3)


def apply(hm, p):
    x, y, z = hm @ np.array([p[0], p[1], 1.0])
    return np.array([x / z, y / z])


def targets(ids, stride=2, band=1):
    """What the network learns at each cell of its output (the frame's
    size over `stride`): 0 table, 1 a card's interior, 2 the edge band
    around a card (`band` cells wide, also where two cards meet)."""
    h, w = ids.shape
    cell = ids[stride // 2::stride, stride // 2::stride][: h // stride, : w // stride]
    out = (cell > 0).astype(np.int64)
    edge = np.zeros_like(cell, bool)
    for dy in range(-band, band + 1):
        for dx in range(-band, band + 1):
            if dx == 0 and dy == 0:
                continue
            shifted = np.pad(cell, band, mode="edge")[band + dy: band + dy + cell.shape[0],
                                                     band + dx: band + dx + cell.shape[1]]
            edge |= shifted != cell
    out[edge] = 2
    return out


def seams(ids, stride=2, band=1):
    """The cells of the edge band where two cards meet (a neighbour within
    `band` cells is another card): what keeps touching cards apart, and
    what the network finds hardest, so the loss weighs it most."""
    h, w = ids.shape
    cell = ids[stride // 2::stride, stride // 2::stride][: h // stride, : w // stride]
    out = np.zeros_like(cell, bool)
    padded = np.pad(cell, band, mode="edge")
    for dy in range(-band, band + 1):
        for dx in range(-band, band + 1):
            shifted = padded[band + dy: band + dy + cell.shape[0], band + dx: band + dx + cell.shape[1]]
            out |= (shifted != cell) & (shifted > 0) & (cell > 0)
    return out
