"""Sets the committed network's gate for seconding the templates, without
training: embeds the `val` split with the exported ONNX network (as
pipeline/learned.rs runs it), sets the gates train.py's
`calibrate_seconded` sets, and writes them into identifier.toml.

    python tools/identifier/calibrate.py --data target/identifier-data \
        --models crates/arbiter-vision/models

`--data` holds the `val` split `identifier_data` renders (with its
`kind.npy`: every card's kind whatever the glare). The other thresholds
and the figures in the file are left as training wrote them.
"""
import argparse
import os
import re

import numpy as np
import onnx
import onnxruntime as ort

from train import NOT_A_CARD, calibrate_seconded, load


def session(path, threads):
    """The ONNX network with a free batch size (it is exported for one)."""
    m = onnx.load(path)
    for t in list(m.graph.input) + list(m.graph.output):
        t.type.tensor_type.shape.dim[0].dim_param = "N"
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    return ort.InferenceSession(m.SerializeToString(), opts, providers=["CPUExecutionProvider"])


def embed(sess, x_u8, batch=256):
    """Each place unit length, the whole unit length (learned.rs's `see`)."""
    out = []
    for i in range(0, len(x_u8), batch):
        x = np.ascontiguousarray(x_u8[i:i + batch]).transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        f = sess.run(None, {sess.get_inputs()[0].name: x})[0]
        f = f / np.maximum(np.linalg.norm(f, axis=1, keepdims=True), 1e-6) / np.sqrt(f.shape[2] * f.shape[3])
        out.append(f.reshape(len(x), -1))
    return np.concatenate(out)


def nearest(sess, split):
    """Each patch's nearest kind among its deck's clean faces, either way
    up, its likeness and its lead (train.py's `predict`)."""
    e = embed(sess, split["x"])
    nd, nk = split["refs"].shape[:2]
    refs = split["refs"].reshape(-1, *split["refs"].shape[2:])
    er = embed(sess, refs).reshape(nd, nk, -1)
    et = embed(sess, refs[:, ::-1, ::-1]).reshape(nd, nk, -1)
    deck = split["deck"]
    sims = np.maximum(np.einsum("qe,qke->qk", e, er[deck]), np.einsum("qe,qke->qk", e, et[deck]))
    sims[~split["refmask"][deck].astype(bool)] = -1.0
    top = np.sort(sims, 1)
    return sims.argmax(1), top[:, -1], top[:, -1] - top[:, -2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="target/identifier-data")
    ap.add_argument("--models", default="crates/arbiter-vision/models")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    val = load(os.path.join(args.data, "val"))
    if not os.path.exists(os.path.join(args.data, "val", "kind.npy")):
        raise SystemExit(f"{args.data}/val/kind.npy: missing; render val again with identifier_data")
    sess = session(os.path.join(args.models, "identifier.onnx"), args.threads)
    best, like, margin = nearest(sess, val)
    t = calibrate_seconded(val["y"], val["kind"], best, like, margin)
    y, kind = val["y"], val["kind"]
    gate = np.where(best == 0, (like >= t["seconded_back_named"]) & (margin >= t["seconded_back_margin"]),
                    (like >= t["seconded_named"]) & (margin >= t["seconded_margin"]))
    cards = y >= 0
    right = gate & cards & (best == y)
    wrong = gate & ((y == NOT_A_CARD) | ((kind >= 0) & (best != kind)))
    print(f"val: {cards.sum()} readable cards, named alone at the seconding gate {100 * right.sum() / cards.sum():.1f}%, "
          f"wrong {wrong.sum()}; glare-blank named as their own kind {(gate & (y == -2) & (best == kind)).sum()} "
          f"of {(y == -2).sum()}")
    path = os.path.join(args.models, "identifier.toml")
    text = open(path).read()
    for key, value in t.items():
        text, n = re.subn(rf"^{key} = .*$", f"{key} = {value:.4f}", text, flags=re.M)
        if n != 1:
            raise SystemExit(f"{path}: no line {key} = ... to set")
    open(path, "w").write(text)
    print(t)


if __name__ == "__main__":
    main()
