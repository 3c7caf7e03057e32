"""An experiment, kept so that its figure can be rerun: chesscog's way for
the learned identifier, a head fitted per deck at `deck learn` time.

    python tools/identifier/deck_head.py CHECKPOINT DATA/heldout [hidden|conv|both|embed]

For each deck of the split, its reference faces are augmented in patch
space (moved up to 5% of a card, turned a little, tables of any colour
behind, light of any colour and gradient, glare spots, blur, noise,
either way up; 150 per kind), the trained network's features are taken
from them (frozen), a multinomial logistic regression is fitted on those
features (L-BFGS), and the deck's readable patches are named by it.
Prints, per deck, the nearest kind right by the fitted head and by the
reference embeddings (`proto`), and the share named with none wrong.

Measured on the committed weights' checkpoint (docs/vision.md): 95.70%
nearest right against 94.08%; about nine minutes on two cores.
"""
import sys, os, numpy as np, torch, torch.nn.functional as F, math, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import Identifier
from train import load, to_input
torch.manual_seed(0); torch.set_num_threads(2)
m = Identifier(); m.load_state_dict(torch.load(sys.argv[1])["model"]); m.eval()
held = load(sys.argv[2])
g = torch.Generator().manual_seed(0)

def feats(x):
    with torch.no_grad():
        f = m.features((x - 0.5) * 4.0)
        h = m.hidden(f)
        e = m.embed(h); e = e / e.norm(dim=1, keepdim=True)
    return f.flatten(1), h, e

def augment(r, n):
    # r: K×3×48×32 in [0,1]; returns n per kind
    K = r.shape[0]
    x = r.repeat_interleave(n, 0)
    N = x.shape[0]
    # random affine: scale, shift, rotation
    s = 1 + (torch.rand(N, generator=g) - 0.5) * 0.1
    a = (torch.rand(N, generator=g) - 0.5) * 0.08
    tx = (torch.rand(N, generator=g) - 0.5) * 0.1
    ty = (torch.rand(N, generator=g) - 0.5) * 0.07
    th = torch.zeros(N, 2, 3)
    th[:, 0, 0] = s * torch.cos(a); th[:, 0, 1] = -s * torch.sin(a) * 1.5; th[:, 0, 2] = tx
    th[:, 1, 0] = s * torch.sin(a) / 1.5; th[:, 1, 1] = s * torch.cos(a); th[:, 1, 2] = ty
    # random margin colour behind the card: fill margin region (grey=MARGIN) with random table
    bg = torch.rand(N, 3, 1, 1, generator=g) * torch.ones(N, 3, 48, 32) + torch.randn(N, 3, 48, 32, generator=g) * 0.05 * torch.rand(N,1,1,1, generator=g)
    grid = F.affine_grid(th, x.shape, align_corners=False)
    # mask of card region in ref: where ref differs from margin grey; approximate by card box
    ones = torch.zeros(1, 1, 48, 32); ones[:, :, 4:44, 2:30] = 1  # approx card area (28 wide)
    card = F.grid_sample(x, grid, align_corners=False, padding_mode="border")
    msk = F.grid_sample(ones.expand(N, 1, 48, 32), grid, align_corners=False)
    x = card * msk + bg * (1 - msk)
    # lighting: per-channel gain, gradient, bias
    gain = 0.55 + torch.rand(N, 3, 1, 1, generator=g) * 0.7
    gain = gain * (1 + (torch.rand(N, 1, 1, 1, generator=g) - 0.5) * 0.6)
    gy = torch.linspace(-1, 1, 48).view(1, 1, 48, 1); gx = torch.linspace(-1, 1, 32).view(1, 1, 1, 32)
    grad = 1 + (torch.rand(N, 1, 1, 1, generator=g) - 0.5) * 0.5 * gy + (torch.rand(N, 1, 1, 1, generator=g) - 0.5) * 0.5 * gx
    x = x * gain * grad
    # glare blob
    cy = torch.rand(N, 1, 1, 1, generator=g) * 48; cx = torch.rand(N, 1, 1, 1, generator=g) * 32
    rad = 3 + torch.rand(N, 1, 1, 1, generator=g) * 10
    yy = torch.arange(48).view(1, 1, 48, 1).float(); xx = torch.arange(32).view(1, 1, 1, 32).float()
    blob = torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * rad ** 2)) * (torch.rand(N, 1, 1, 1, generator=g) < 0.3).float() * torch.rand(N, 1, 1, 1, generator=g) * 0.8
    x = x + blob
    # blur
    sig = torch.rand(N, generator=g) * 1.0
    out = torch.empty_like(x)
    for i in range(N):
        sg = float(sig[i])
        if sg < 0.3: out[i] = x[i]; continue
        k = torch.arange(-3, 4).float(); w = torch.exp(-k ** 2 / (2 * sg * sg)); w /= w.sum()
        xi = x[i:i+1]
        xi = F.conv2d(F.pad(xi, (3, 3, 0, 0), mode="replicate"), w.view(1, 1, 1, 7).repeat(3, 1, 1, 1), groups=3)
        xi = F.conv2d(F.pad(xi, (0, 0, 3, 3), mode="replicate"), w.view(1, 1, 7, 1).repeat(3, 1, 1, 1), groups=3)
        out[i] = xi[0]
    x = out + torch.randn(x.shape, generator=g) * 0.02
    x = x.clamp(0, 1)
    flip = torch.rand(N, generator=g) < 0.5
    x[flip] = torch.flip(x[flip], dims=(2, 3))
    return x, torch.arange(K).repeat_interleave(n)

def fit(Xtr, ytr, K, l2=1e-3, steps=300):
    mu, sd = Xtr.mean(0), Xtr.std(0) + 1e-3
    X = (Xtr - mu) / sd
    W = torch.zeros(X.shape[1], K, requires_grad=True); b = torch.zeros(K, requires_grad=True)
    opt = torch.optim.LBFGS([W, b], max_iter=steps, line_search_fn="strong_wolfe")
    def closure():
        opt.zero_grad(); l = F.cross_entropy(X @ W + b, ytr) + l2 * (W ** 2).sum(); l.backward(); return l
    opt.step(closure)
    return lambda Z: ((Z - mu) / sd) @ W.detach() + b.detach()

y = held["y"]; deck = held["deck"]; meta = held["meta"]
names = held["decks"]
which = sys.argv[3] if len(sys.argv) > 3 else "hidden"
res = {}
for d in sorted(set(deck.tolist())):
    sel = (deck == d) & (y >= 0)
    if sel.sum() == 0: continue
    mask = held["refmask"][d].astype(bool)
    kinds = np.nonzero(mask)[0]
    refs = to_input(held["refs"][d][kinds])
    xa, ya = augment(refs, 150)
    xa = torch.cat([xa, refs])
    ya = torch.cat([ya, torch.arange(len(kinds))])
    fa, ha, ea = feats(xa)
    xq = to_input(held["x"][sel])
    fq, hq, eq = feats(xq)
    Ftr, Fq = {"hidden": (ha, hq), "conv": (fa, fq), "both": (torch.cat([fa, ha], 1), torch.cat([fq, hq], 1)), "embed": (ea, eq)}[which]
    clf = fit(Ftr, ya, len(kinds))
    logits = clf(Fq)
    pred = kinds[logits.argmax(1).numpy()]
    p = F.softmax(logits, 1).max(1).values.numpy()
    # prototype baseline
    _, _, er = feats(refs)
    proto = kinds[(eq @ er.T).argmax(1).numpy()]
    name = names[d] if not names[d].startswith("random") else "random"
    r = res.setdefault(name, [0, 0, 0, [], []])
    r[0] += sel.sum(); r[1] += (pred == y[sel]).sum(); r[2] += (proto == y[sel]).sum()
    r[3].extend(p[pred == y[sel]].tolist()); r[4].extend(p[pred != y[sel]].tolist())
tot = [0, 0, 0]
allw = []; allr = []
for k, r in res.items():
    wr = np.array(r[4]); rr = np.array(r[3])
    thr = wr.max() if len(wr) else 0
    print(f"{k:12s} n={r[0]:5d} head {100*r[1]/r[0]:.2f}% proto {100*r[2]/r[0]:.2f}%  named@0wrong {100*(rr>thr).sum()/r[0]:.1f}%")
    tot = [tot[0]+r[0], tot[1]+r[1], tot[2]+r[2]]; allw += r[4]; allr += r[3]
thr = max(allw) if allw else 0
print(f"all n={tot[0]} head {100*tot[1]/tot[0]:.2f}% proto {100*tot[2]/tot[0]:.2f}% named@0wrong(global thr {thr:.5f}) {100*(np.array(allr)>thr).sum()/tot[0]:.1f}%")
