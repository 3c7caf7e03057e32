"""Trains the learned identifier from the renders `identifier_data` writes.

    python tools/identifier/train.py --data DIR --out crates/arbiter-vision/models [--steps N] [--seed S]

Each step draws a few decks and, for each, a batch of its patches; the
deck's reference faces are embedded by the same network, and each card's
embedding is scored against them (a softmax over the deck's kinds on
cosine similarity): the network learns to compare a card with the deck in
play, whatever the deck. A second head says card, not a card, or a card a
lamp washed out. Then the naming thresholds are set on the `val` split so
that none is named wrong, every figure is measured on `val` and `heldout`,
and the network is exported to ONNX with its figures beside it.
"""
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

from model import Identifier, export

KIND_CARD, KIND_NOT, KIND_GLARE = 0, 1, 2


def load(dir):
    d = {k: np.load(os.path.join(dir, k + ".npy"), mmap_mode=None) for k in
         ["x", "y", "deck", "meta", "refs", "refmask"]}
    d["decks"] = open(os.path.join(dir, "decks.txt")).read().split()
    fam = open(os.path.join(dir, "families.txt")).read().splitlines()
    d["surfaces"] = fam[0].split(": ")[1].split()
    d["lights"] = fam[1].split(": ")[1].split()
    return d


def to_input(x_u8):
    """u8 N×H×W×3 -> float N×3×H×W in [0, 1]."""
    return torch.from_numpy(x_u8).permute(0, 3, 1, 2).float() / 255.0


def kind_target(y):
    t = np.zeros_like(y, dtype=np.int64)
    t[y == -1] = KIND_NOT
    t[y == -2] = KIND_GLARE
    return t


def augment_refs(r, gen):
    """A reference photographed or scanned a little differently."""
    n = r.shape[0]
    gain = 1.0 + (torch.rand(n, 3, 1, 1, generator=gen) - 0.5) * 0.16
    bias = (torch.rand(n, 1, 1, 1, generator=gen) - 0.5) * 0.08
    r = (r * gain + bias).clamp(0, 1)
    noise = torch.randn(r.shape, generator=gen) * 0.01
    return (r + noise).clamp(0, 1)


def train(args):
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    tr = load(os.path.join(args.data, "train"))
    for more in args.more_train:
        # Later frames of the same run (identifier_data --first): the same
        # decks' numbering, their references the larger set.
        extra = load(more)
        for k in ["x", "y", "deck", "meta"]:
            tr[k] = np.concatenate([tr[k], extra[k]])
        if len(extra["refs"]) > len(tr["refs"]):
            tr["refs"], tr["refmask"], tr["decks"] = extra["refs"], extra["refmask"], extra["decks"]
    by_deck = {}
    for i, d in enumerate(tr["deck"]):
        by_deck.setdefault(int(d), []).append(i)
    decks = sorted(by_deck)
    model = Identifier()
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    ckpt = os.path.join(args.work, "identifier.pt")
    start = 0
    if os.path.exists(ckpt) and not args.fresh:
        state = torch.load(ckpt)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["step"]
        print(f"resuming at step {start}")
    clock = time.time()
    model.train()
    rng = np.random.default_rng(args.seed + start)
    for step in range(start, args.steps):
        lr = args.lr * 0.5 * (1 + math.cos(math.pi * step / args.steps))
        for g in opt.param_groups:
            g["lr"] = lr
        chosen = rng.choice(decks, size=args.decks_per_step, replace=False)
        q_idx, q_deck = [], []
        for k, d in enumerate(chosen):
            idx = rng.choice(by_deck[d], size=args.per_deck, replace=len(by_deck[d]) < args.per_deck)
            q_idx.extend(idx)
            q_deck.extend([k] * len(idx))
        q_idx = np.array(q_idx)
        q_deck = torch.tensor(q_deck)
        xq = to_input(tr["x"][q_idx])
        # Either way up.
        flip = torch.rand(len(q_idx), generator=gen) < 0.5
        xq[flip] = torch.flip(xq[flip], dims=(2, 3))
        y = torch.from_numpy(tr["y"][q_idx].astype(np.int64))
        nk = tr["refs"].shape[1]
        refs = to_input(tr["refs"][chosen].reshape(-1, *tr["refs"].shape[2:]))
        refs = augment_refs(refs, gen)
        mask = torch.from_numpy(tr["refmask"][chosen].astype(bool))  # D×K
        e, kind = model(torch.cat([xq, refs]))
        eq, er = e[: len(q_idx)], e[len(q_idx):].reshape(len(chosen), nk, -1)
        scale = model.log_scale.exp()
        sims = torch.einsum("qe,qke->qk", eq, er[q_deck])
        sims = sims.masked_fill(~mask[q_deck], -4.0)
        card = (y >= 0) & mask[q_deck].gather(1, y.clamp_min(0)[:, None])[:, 0]
        loss_id = F.cross_entropy(scale * sims[card], y[card]) if card.any() else 0.0
        kt = torch.from_numpy(kind_target(tr["y"][q_idx]))
        kt = torch.cat([kt, torch.zeros(len(refs), dtype=torch.int64)])
        kw = torch.tensor([1.0, 1.0, 2.0])
        loss_kind = F.cross_entropy(kind, kt, weight=kw)
        loss = loss_id + loss_kind
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or step == args.steps - 1:
            with torch.no_grad():
                acc = (sims[card].argmax(1) == y[card]).float().mean().item()
            print(f"step {step} loss {loss.item():.3f} id {float(loss_id):.3f} kind {loss_kind.item():.3f} "
                  f"top1 {acc:.3f} scale {scale.item():.1f} lr {lr:.5f} {time.time() - clock:.0f}s", flush=True)
        if (step + 1) % 500 == 0 or step == args.steps - 1:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step + 1}, ckpt)
    return model, time.time() - clock


@torch.no_grad()
def embed(model, x_u8, batch=2048):
    es, ks = [], []
    for i in range(0, len(x_u8), batch):
        e, k = model(to_input(x_u8[i:i + batch]))
        es.append(e)
        ks.append(F.softmax(k, dim=1))
    return torch.cat(es), torch.cat(ks)


@torch.no_grad()
def predict(model, split, scale):
    """Each patch's nearest kind among its deck's, that kind's probability,
    and the kind head's probabilities."""
    model.eval()
    e, k = embed(model, split["x"])
    nd, nk = split["refs"].shape[:2]
    er, _ = embed(model, split["refs"].reshape(-1, *split["refs"].shape[2:]))
    er = er.reshape(nd, nk, -1)
    mask = torch.from_numpy(split["refmask"].astype(bool))
    deck = torch.from_numpy(split["deck"].astype(np.int64))
    sims = torch.einsum("qe,qke->qk", e, er[deck]).masked_fill(~mask[deck], -4.0)
    p = F.softmax(scale * sims, dim=1)
    best_p, best = p.max(1)
    return best.numpy(), best_p.numpy(), k.numpy()


def named(best_p, k, t):
    return (k[:, KIND_GLARE] < t["glare"]) & (k[:, KIND_NOT] < t["not_card"]) & (best_p >= t["named"])


def calibrate(y, best, best_p, k):
    """The thresholds that name the most cards of `val` with the fewest
    wrong (none, wherever a margin allows it)."""
    choice, key = None, None
    for tn in [0.5, 0.3, 0.2, 0.1, 0.05, 0.02]:
        for tg in [0.5, 0.3, 0.2, 0.1, 0.05]:
            for tp in [0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999]:
                t = {"not_card": tn, "glare": tg, "named": tp}
                gate = named(best_p, k, t)
                wrong = (gate & ((y < 0) | (best != y))).sum()
                right = (gate & (best == y)).sum()
                if key is None or (wrong, -right) < key:
                    choice, key = t, (wrong, -right)
    return choice


def report(name, split, best, best_p, k, t):
    y = split["y"]
    meta = split["meta"]
    ok = named(best_p, k, t)
    right = ok & (best == y)
    wrong = ok & ((y < 0) | (best != y))
    glare_right = (~ok) & (y == -2) & (k[:, KIND_GLARE] >= t["glare"])
    cards = y >= 0
    lines = [f"## {name}: {len(y)} patches, {cards.sum()} readable cards, {(y == -1).sum()} not cards, "
             f"{(y == -2).sum()} glare-blank"]

    def row(label, sel):
        c = sel & cards
        n = c.sum()
        if n == 0:
            return
        lines.append(f"| {label} | {n} | {100 * right[c].mean():.2f}% | {wrong[sel].sum()} | "
                     f"{100 * (best[c] == y[c]).mean():.2f}% |")

    lines.append("| factor | cards | named right | named wrong | nearest right |")
    lines.append("|---|---|---|---|---|")
    row("all", np.ones_like(cards))
    off = meta[:, 3]
    row("outline exact", off == 0)
    row("outline off 0-4%", (off > 0) & (off <= 0.04))
    row("outline off 4-10%", (off > 0.04) & (off <= 0.1))
    w = meta[:, 0]
    for a, b in [(0, 60), (60, 100), (100, 200), (200, 1000)]:
        row(f"width {a}-{b} px", (w >= a) & (w < b))
    for i, s in enumerate(split["surfaces"]):
        row(f"surface {s}", meta[:, 4] == i)
    for i, s in enumerate(split["lights"]):
        row(f"light {s}", meta[:, 5] == i)
    washed = meta[:, 1]
    row("print washed 0-20%", washed < 0.2)
    row("print washed 20-50%", washed >= 0.2)
    decks = np.array([split["decks"][d] for d in split["deck"]])
    for dn in sorted(set(decks)):
        if not dn.startswith("random"):
            row(f"deck {dn}", decks == dn)
    row("random decks", np.char.startswith(decks.astype(str), "random"))
    nots = y == -1
    lines.append(f"not a card: {nots.sum()}, named as a card {wrong[nots].sum()}")
    g = y == -2
    lines.append(f"glare-blank: {g.sum()}, `??` for glare {glare_right[g].sum()}, named {ok[g].sum()}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--work", default="target/identifier-work")
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--decks-per-step", type=int, default=8)
    ap.add_argument("--per-deck", type=int, default=24)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--fresh", action="store_true")
    ap.add_argument("--more-train", nargs="*", default=[])
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    model, seconds = train(args)
    scale = float(model.log_scale.exp())
    val = load(os.path.join(args.data, "val"))
    best, best_p, k = predict(model, val, scale)
    t = calibrate(val["y"], best, best_p, k)
    t["scale"] = scale
    text = [report("val (training families, unseen decks)", val, best, best_p, k, t)]
    held_dir = os.path.join(args.data, "heldout")
    if os.path.exists(held_dir):
        held = load(held_dir)
        hb, hp, hk = predict(model, held, scale)
        text.append(report("heldout (wood, linen, warm lamps, the fixture decks, unseen random decks)",
                           held, hb, hp, hk, t))
    print("\n\n".join(text))
    os.makedirs(args.out, exist_ok=True)
    export(model, os.path.join(args.out, "identifier.onnx"))
    params = sum(p.numel() for p in model.parameters())
    with open(os.path.join(args.out, "identifier.toml"), "w") as f:
        f.write("# The learned identifier's figures, written by tools/train-identifier.\n")
        f.write(f"# Trained {args.steps} steps, seed {args.seed}, in {seconds / 60:.1f} min on "
                f"{args.threads} threads; {params} parameters.\n")
        for line in "\n\n".join(text).splitlines():
            f.write(f"# {line}\n")
        f.write("[thresholds]\n")
        for key in ["scale", "named", "not_card", "glare"]:
            f.write(f"{key} = {float(t[key]):.6f}\n")
    print(json.dumps(t))


if __name__ == "__main__":
    main()
