"""A plain OpenCV card reader: the baseline arbiter's camera is timed against.

What a tutorial's card reader does, and nothing of arbiter's: the frame in
grey, Otsu's threshold (cards are paler than the table), the outer contours,
each simplified to a polygon; a convex four-cornered one of a card's size
and shape is warped flat to 48x67 pixels and compared, by normalised
correlation, with every face of the deck (each also turned 180 degrees);
the best is the card's name when it correlates at least 0.6.

    python reader.py --faces DIR PHOTO...    (one JSON line a photo)

DIR holds one PNG a face, named by its token (`arbiter deck export`).
With `--codes` instead, the plain reader of a coded deck: OpenCV's own
fiducial detector (`cv2.aruco`, its AprilTag 25h9 dictionary) names each
code, and a card's two codes (the same code, closer than three code
widths) count once. One thread, as arbiter's reader runs.
"""

import argparse
import json
import pathlib
import sys
import time

import cv2
import numpy as np

W, H = 48, 67
ACCEPT = 0.6


def flat(gray):
    v = gray.astype(np.float32).ravel()
    v -= v.mean()
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def load_faces(folder):
    tokens, rows = [], []
    for png in sorted(pathlib.Path(folder).glob("*.png")):
        img = cv2.imread(str(png), cv2.IMREAD_GRAYSCALE)
        if img is None:
            raise SystemExit(f"{png}: not an image")
        small = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
        for turned in (small, cv2.rotate(small, cv2.ROTATE_180)):
            tokens.append(png.stem)
            rows.append(flat(turned))
    if not rows:
        raise SystemExit(f"{folder}: no PNG faces")
    return tokens, np.stack(rows)


def order(quad):
    """Corners clockwise from the top-left, the short side first."""
    pts = quad.reshape(4, 2).astype(np.float32)
    c = pts.mean(axis=0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    pts = pts[np.argsort(ang)]
    if np.linalg.norm(pts[0] - pts[1]) > np.linalg.norm(pts[1] - pts[2]):
        pts = np.roll(pts, -1, axis=0)
    return pts


def read(frame, tokens, faces):
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(gray, (5, 5), 0)
    _, mask = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_min = 0.0008 * gray.size
    area_max = 0.3 * gray.size
    target = np.float32([[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]])
    cards = []
    for c in contours:
        area = cv2.contourArea(c)
        if not area_min <= area <= area_max:
            continue
        approx = cv2.approxPolyDP(c, 0.04 * cv2.arcLength(c, True), True)
        if len(approx) != 4 or not cv2.isContourConvex(approx):
            continue
        pts = order(approx)
        short = np.linalg.norm(pts[0] - pts[1])
        long = np.linalg.norm(pts[1] - pts[2])
        if short <= 0 or not 1.15 <= long / short <= 1.7:
            continue
        m = cv2.getPerspectiveTransform(pts, target)
        patch = cv2.warpPerspective(gray, m, (W, H))
        scores = faces @ flat(patch)
        best = int(np.argmax(scores))
        centre = pts.mean(axis=0)
        cards.append(
            {
                "centre": [round(float(centre[0]), 1), round(float(centre[1]), 1)],
                "token": tokens[best] if scores[best] >= ACCEPT else None,
                "score": round(float(scores[best]), 3),
            }
        )
    return cards


COLOURS = "wbruy"
PIECES = "KQRBNP"
BACK_CODE = 30


def read_codes(frame, detector):
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = detector.detectMarkers(gray)
    found = []
    for quad, (i,) in zip(corners, ids if ids is not None else []):
        i = int(i)
        if i == BACK_CODE:
            token = "##"
        elif i < 30:
            token = COLOURS[i // 6] + PIECES[i % 6]
        else:
            continue
        pts = quad.reshape(4, 2)
        side = float(np.linalg.norm(pts[0] - pts[1]))
        found.append((token, pts.mean(axis=0), side))
    cards = []
    for token, centre, side in found:
        twin = any(
            t == token and np.linalg.norm(c - centre) < 3 * s
            for t, c, s, in [(x["token"], np.array(x["centre"]), x["side"]) for x in cards]
        )
        if not twin:
            cards.append({"centre": [float(centre[0]), float(centre[1])], "token": token, "side": side})
    return cards


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faces")
    ap.add_argument("--codes", action="store_true")
    ap.add_argument("photos", nargs="+")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.codes:
        dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_APRILTAG_25h9)
        detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
        reader = lambda frame: read_codes(frame, detector)
    elif args.faces:
        tokens, faces = load_faces(args.faces)
        reader = lambda frame: read(frame, tokens, faces)
    else:
        ap.error("--faces DIR or --codes")
    for p in args.photos:
        start = time.perf_counter()
        frame = cv2.imread(p, cv2.IMREAD_COLOR)
        if frame is None:
            print(f"{p}: not an image", file=sys.stderr)
            continue
        cards = reader(frame)
        ms = (time.perf_counter() - start) * 1e3
        print(json.dumps({"image": p, "ms": round(ms, 2), "cards": cards}))


if __name__ == "__main__":
    main()
