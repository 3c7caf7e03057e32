"""The learned identifier's network (crates/arbiter-vision/src/pipeline/learned.rs runs it).

A patch is a card's outline straightened to 32x48 RGB with a margin of
table (`Patch::from_frame`), scaled to [0, 1]. Four 3x3 convolutions
(three of them strided) and a fully connected layer make a 64-long unit embedding,
compared with the embeddings of the deck's reference faces, and three
logits: a card with its print showing, not a card, a card whose print a
lamp washed out. About 2 M multiply-adds: the budget is 0.2 ms a card on
one core with tract.
"""
import torch
import torch.nn as nn

PATCH_H, PATCH_W, EMBEDDING = 48, 32, 64


def block(i, o, stride=2):
    return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU())


class Identifier(nn.Module):
    def __init__(self, widths=(16, 32, 64), hidden=128):
        super().__init__()
        a, b, c = widths
        self.features = nn.Sequential(block(3, a), block(a, b), block(b, b, stride=1), block(b, c))
        self.hidden = nn.Sequential(nn.Flatten(), nn.Linear(c * 6 * 4, hidden), nn.ReLU())
        self.embed = nn.Linear(hidden, EMBEDDING)
        self.kind = nn.Linear(hidden, 3)
        # The softmax's scale on cosine similarities, learned.
        self.log_scale = nn.Parameter(torch.tensor(2.7))

    def forward(self, x):
        # Centre the input inside the network, so the product feeds [0, 1].
        h = self.hidden(self.features((x - 0.5) * 4.0))
        e = self.embed(h)
        e = e / e.norm(dim=1, keepdim=True).clamp_min(1e-6)
        return e, self.kind(h)


def export(model, path):
    model = model.eval()
    x = torch.zeros(1, 3, PATCH_H, PATCH_W)
    torch.onnx.export(model, x, path, input_names=["patch"], output_names=["embedding", "kind"],
                      opset_version=17, dynamo=False)
