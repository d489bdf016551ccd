# Corpus program: the Descript Audio Codec's convolutional blocks: weight-normed Conv1d and ConvTranspose1d
#   (torch.nn.utils.weight_norm), the Snake activation as a @torch.jit.script function (x + 1/alpha *
#   sin(alpha*x)^2 with reciprocal), residual units with dilations 1, 3, 9 and centre cropping, encoder and
#   decoder blocks with strided and transposed convolutions, trained for a few steps on a waveform.
# Source: descriptinc/descript-audio-codec, dac/nn/layers.py (WNConv1d, WNConvTranspose1d, snake, Snake1d) and
#   dac/model/dac.py (ResidualUnit, EncoderBlock, DecoderBlock), as published.
# Licence: MIT (descript-audio-codec; not verified: its licence file was not available to read here).
# Changes: layers.py's unused `from einops import rearrange` left out (einops is not installed); a tiny
#   encoder/decoder pair (channels 8 and 16, stride 2) on a random 1x1x64 signal with an L1 reconstruction loss,
#   5 Adam steps.
# Randomness: torch.manual_seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-5 -- float32 convolutions.
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import weight_norm


def WNConv1d(*args, **kwargs):
    return weight_norm(nn.Conv1d(*args, **kwargs))


def WNConvTranspose1d(*args, **kwargs):
    return weight_norm(nn.ConvTranspose1d(*args, **kwargs))


# Scripting this brings model speed up 1.4x
@torch.jit.script
def snake(x, alpha):
    shape = x.shape
    x = x.reshape(shape[0], shape[1], -1)
    x = x + (alpha + 1e-9).reciprocal() * torch.sin(alpha * x).pow(2)
    x = x.reshape(shape)
    return x


class Snake1d(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(1, channels, 1))

    def forward(self, x):
        return snake(x, self.alpha)


class ResidualUnit(nn.Module):
    def __init__(self, dim: int = 16, dilation: int = 1):
        super().__init__()
        pad = ((7 - 1) * dilation) // 2
        self.block = nn.Sequential(
            Snake1d(dim),
            WNConv1d(dim, dim, kernel_size=7, dilation=dilation, padding=pad),
            Snake1d(dim),
            WNConv1d(dim, dim, kernel_size=1),
        )

    def forward(self, x):
        y = self.block(x)
        pad = (x.shape[-1] - y.shape[-1]) // 2
        if pad > 0:
            x = x[..., pad:-pad]
        return x + y


class EncoderBlock(nn.Module):
    def __init__(self, dim: int = 16, stride: int = 1):
        super().__init__()
        self.block = nn.Sequential(
            ResidualUnit(dim // 2, dilation=1),
            ResidualUnit(dim // 2, dilation=3),
            ResidualUnit(dim // 2, dilation=9),
            Snake1d(dim // 2),
            WNConv1d(
                dim // 2,
                dim,
                kernel_size=2 * stride,
                stride=stride,
                padding=math.ceil(stride / 2),
            ),
        )

    def forward(self, x):
        return self.block(x)


class DecoderBlock(nn.Module):
    def __init__(self, input_dim: int = 16, output_dim: int = 8, stride: int = 1):
        super().__init__()
        self.block = nn.Sequential(
            Snake1d(input_dim),
            WNConvTranspose1d(
                input_dim,
                output_dim,
                kernel_size=2 * stride,
                stride=stride,
                padding=math.ceil(stride / 2),
            ),
            ResidualUnit(output_dim, dilation=1),
            ResidualUnit(output_dim, dilation=3),
            ResidualUnit(output_dim, dilation=9),
        )

    def forward(self, x):
        return self.block(x)


torch.manual_seed(0)
model = nn.Sequential(WNConv1d(1, 8, kernel_size=7, padding=3), EncoderBlock(16, stride=2),
                      DecoderBlock(16, 8, stride=2), Snake1d(8), WNConv1d(8, 1, kernel_size=7, padding=3), nn.Tanh())
signal = torch.sin(torch.linspace(0, 12 * math.pi, 64)).view(1, 1, 64) * 0.5 + 0.1 * torch.randn(1, 1, 64)
print(snake(torch.linspace(-2, 2, 5).view(1, 1, 5), torch.full((1, 1, 1), 0.5)))
print(model[1].block[0].block[1].weight_g.shape, model[2].block[1].weight_v.shape)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(5):
    recon = model(signal)
    loss = F.l1_loss(recon, signal)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, tuple(recon.shape), round(loss.item(), 6))
print(model[3].alpha.view(-1))
