"""arbiter's reader against the plain OpenCV reader, on the same photos, in one run.

    python compare.py --arbiter BIN --faces DIR PHOTOS_DIR

Each reader reads every `*.jpg` of PHOTOS_DIR in one process, one thread,
decoding included: `BIN recognise --json` and `reader.py`. Reported for
each: the whole run's seconds (process start included) and, for OpenCV, its
own time a photo without Python's start; cards named, and how many of them
a photo's truth (`NNN.toml` beside it, as `make_frames --unseen` writes
it) holds, counted as multisets of tokens per photo (no cells: the plain
reader places none), on the photos with no hand over a card.
"""

import argparse
import collections
import json
import pathlib
import subprocess
import sys
import time
import tomllib


def truth_tokens(toml_path):
    if not toml_path.exists():
        return None
    data = tomllib.loads(toml_path.read_text())
    steps = data.get("step", [])
    if not steps or steps[0].get("busy"):
        return None
    tokens = collections.Counter()
    for step in steps[:1]:
        for tok in step.get("table", "").split():
            if tok != "..":
                tokens[tok] += 1
    return tokens


def tally(named, truth):
    """Named right and named but not in the truth; a photo with a hand
    over a card (no truth of its cells) is not judged."""
    if truth is None:
        return 0, 0
    right = sum((named & truth).values())
    return right, sum(named.values()) - right


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arbiter", required=True)
    ap.add_argument("--faces", required=True)
    ap.add_argument("photos")
    args = ap.parse_args()
    photos = sorted(str(p) for p in pathlib.Path(args.photos).glob("*.jpg"))
    if not photos:
        sys.exit(f"{args.photos}: no .jpg photos")
    here = pathlib.Path(__file__).parent

    start = time.perf_counter()
    ours = subprocess.run(
        [args.arbiter, "recognise", "--json", *photos],
        capture_output=True, text=True, check=True,
    )
    ours_s = time.perf_counter() - start

    plain = {}
    for name, how in [("plain OpenCV (faces)", ["--faces", args.faces]),
                      ("OpenCV's aruco (codes)", ["--codes"])]:
        start = time.perf_counter()
        run = subprocess.run(
            [sys.executable, str(here / "reader.py"), *how, *photos],
            capture_output=True, text=True, check=True,
        )
        plain[name] = (run.stdout, time.perf_counter() - start)

    truth = {p: truth_tokens(pathlib.Path(p).with_suffix(".toml")) for p in photos}
    cards = sum(sum(t.values()) for t in truth.values() if t)
    judged = sum(1 for t in truth.values() if t is not None)
    ours_right = ours_wrong = 0
    for line in ours.stdout.splitlines():
        r = json.loads(line)
        named = collections.Counter(
            c["token"] for c in r["cells"] if c["token"] != "??"
        ) if not r.get("busy") else collections.Counter()
        a, b = tally(named, truth.get(r["image"]))
        ours_right, ours_wrong = ours_right + a, ours_wrong + b
    n = len(photos)
    print(f"{n} photos; {judged} with no hand over a card hold {cards} cards, "
          "the cards named counted on those")
    print(f"{'arbiter recognise':<24} {ours_s:7.2f} s in all, {1e3 * ours_s / n:6.1f} ms a photo; "
          f"{ours_right} named right, {ours_wrong} not in the truth")
    for name, (stdout, seconds) in plain.items():
        right = wrong = 0
        own_ms = 0.0
        for line in stdout.splitlines():
            r = json.loads(line)
            own_ms += r["ms"]
            named = collections.Counter(
                "##" if c["token"] == "back" else c["token"] for c in r["cards"] if c["token"]
            )
            a, b = tally(named, truth.get(r["image"]))
            right, wrong = right + a, wrong + b
        print(f"{name:<24} {seconds:7.2f} s in all, {1e3 * seconds / n:6.1f} ms a photo "
              f"({own_ms / n:.1f} without Python's start); "
              f"{right} named right, {wrong} not in the truth; "
              f"arbiter {seconds / ours_s:.2f}x as fast")


if __name__ == "__main__":
    main()
