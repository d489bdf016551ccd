# Corpus program: mamba-minimal, a one-file Mamba: a dataclass of arguments with a derived d_inner and dt_rank,
#   RMSNorm (torch.rsqrt), a depthwise causal Conv1d (groups=d_inner, padding d_conv-1, cropped), the
#   selective scan (softplus step sizes, the zero-order-hold discretisation exp(delta*A), a Python loop over
#   time that stacks the outputs), split with a list of sizes, SiLU gating, tied embedding and LM head.
# Source: johnma2006/mamba-minimal, model.py (as published; from_pretrained, which downloads, is left out).
# Licence: Apache-2.0 (mamba-minimal; not verified: its licence file was not available to read here).
# Changes: einops (not installed) replaced by what its calls do: rearrange by transpose, repeat by expand,
#   einops.einsum by torch.einsum with the same subscripts in single letters; a model of width 16, 2 layers, a
#   vocabulary of 32, sequences of 12 tokens; a few Adam steps on a copy task and a greedy generation.
# Randomness: torch.manual_seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-5 -- float32 scans.
from __future__ import annotations
import math
import json
import torch
import torch.nn as nn
import torch.nn.functional as F
from dataclasses import dataclass
from typing import Union


@dataclass
class ModelArgs:
    d_model: int
    n_layer: int
    vocab_size: int
    d_state: int = 16
    expand: int = 2
    dt_rank: Union[int, str] = 'auto'
    d_conv: int = 4
    pad_vocab_size_multiple: int = 8
    conv_bias: bool = True
    bias: bool = False

    def __post_init__(self):
        self.d_inner = int(self.expand * self.d_model)

        if self.dt_rank == 'auto':
            self.dt_rank = math.ceil(self.d_model / 16)

        if self.vocab_size % self.pad_vocab_size_multiple != 0:
            self.vocab_size += (self.pad_vocab_size_multiple
                                - self.vocab_size % self.pad_vocab_size_multiple)


class Mamba(nn.Module):
    def __init__(self, args: ModelArgs):
        """Full Mamba model."""
        super().__init__()
        self.args = args

        self.embedding = nn.Embedding(args.vocab_size, args.d_model)
        self.layers = nn.ModuleList([ResidualBlock(args) for _ in range(args.n_layer)])
        self.norm_f = RMSNorm(args.d_model)

        self.lm_head = nn.Linear(args.d_model, args.vocab_size, bias=False)
        self.lm_head.weight = self.embedding.weight  # Tie output projection to embedding weights.
                                                     # See "Weight Tying" paper

    def forward(self, input_ids):
        x = self.embedding(input_ids)

        for layer in self.layers:
            x = layer(x)

        x = self.norm_f(x)
        logits = self.lm_head(x)

        return logits


class ResidualBlock(nn.Module):
    def __init__(self, args: ModelArgs):
        """Simple block wrapping Mamba block with normalization and residual connection."""
        super().__init__()
        self.args = args
        self.mixer = MambaBlock(args)
        self.norm = RMSNorm(args.d_model)

    def forward(self, x):
        output = self.mixer(self.norm(x)) + x

        return output


class MambaBlock(nn.Module):
    def __init__(self, args: ModelArgs):
        """A single Mamba block, as described in Figure 3 in Section 3.4 in the Mamba paper [1]."""
        super().__init__()
        self.args = args

        self.in_proj = nn.Linear(args.d_model, args.d_inner * 2, bias=args.bias)

        self.conv1d = nn.Conv1d(
            in_channels=args.d_inner,
            out_channels=args.d_inner,
            bias=args.conv_bias,
            kernel_size=args.d_conv,
            groups=args.d_inner,
            padding=args.d_conv - 1,
        )

        # x_proj takes in `x` and outputs the input-specific Δ, B, C
        self.x_proj = nn.Linear(args.d_inner, args.dt_rank + args.d_state * 2, bias=False)

        # dt_proj projects Δ from dt_rank to d_in
        self.dt_proj = nn.Linear(args.dt_rank, args.d_inner, bias=True)

        A = torch.arange(1, args.d_state + 1).unsqueeze(0).expand(args.d_inner, args.d_state)  # repeat 'n -> d n'
        self.A_log = nn.Parameter(torch.log(A))
        self.D = nn.Parameter(torch.ones(args.d_inner))
        self.out_proj = nn.Linear(args.d_inner, args.d_model, bias=args.bias)

    def forward(self, x):
        (b, l, d) = x.shape

        x_and_res = self.in_proj(x)  # shape (b, l, 2 * d_in)
        x_and_res = x_and_res.transpose(1, 2)  # rearrange 'b l x -> b x l'
        (x, res) = x_and_res.split(split_size=[self.args.d_inner, self.args.d_inner], dim=1)

        x = self.conv1d(x)[:, :, :l]
        x = F.silu(x)

        y = self.ssm(x)

        y = y * F.silu(res)

        output = self.out_proj(y.transpose(1, 2))  # rearrange 'b d_model l -> b l d_model'

        return output

    def ssm(self, x):
        (d_in, n) = self.A_log.shape

        A = -torch.exp(self.A_log.float())  # shape (d_in, n)
        D = self.D.float()

        x_dbl = x.transpose(1, 2)  # rearrange 'b d l -> b l d'
        x_dbl = self.x_proj(x_dbl)  # (b, l, dt_rank + 2*n)

        (delta, B, C) = x_dbl.split(split_size=[self.args.dt_rank, n, n], dim=-1)  # delta: (b, l, dt_rank). B, C: (b, l, n)
        delta = F.softplus(self.dt_proj(delta))  # (b, l, d_in)

        y = self.selective_scan(x, delta, A, B, C, D)  # This is similar to run_SSM(A, B, C, u) in The Annotated S4 [2]

        return y

    def selective_scan(self, u, delta, A, B, C, D):
        (b, d_in, l) = u.shape
        n = A.shape[1]

        # Discretize continuous parameters (Δ, A, B) using zero-order hold (ZOH) discretization
        # See Section 2 Equation 4 in the Mamba paper [1]
        deltaA = torch.exp(torch.einsum('bld,dn->bdln', delta, A))
        deltaB_u = torch.einsum('bld,bln,bdl->bdln', delta, B, u)

        # Perform selective scan (see scan_SSM() in The Annotated S4 [2])
        x = torch.zeros((b, d_in, n))
        ys = []
        for i in range(l):
            x = deltaA[:, :, i] * x + deltaB_u[:, :, i]
            y = torch.einsum('bdn,bn->bd', x, C[:, i, :])
            ys.append(y)
        y = torch.stack(ys, dim=2) # (b d_in l)

        if D is not None:
            y = y + u * D.unsqueeze(-1)  # rearrange 'd_in -> d_in 1'

        return y


class RMSNorm(nn.Module):
    def __init__(self,
                 d_model: int,
                 eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        output = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight

        return output


torch.manual_seed(0)
args = ModelArgs(d_model=16, n_layer=2, vocab_size=30, d_state=8)
print(args)
model = Mamba(args)
print(sum(p.numel() for p in model.parameters()), model.lm_head.weight is model.embedding.weight)
print(model.layers[0].mixer.conv1d)
tokens = torch.randint(0, 30, (4, 12))
logits = model(tokens)
print(logits.shape, logits[0, -1, :6])
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(6):
    logits = model(tokens[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(step, round(loss.item(), 5))
with torch.no_grad():
    seq = tokens[:1, :4]
    for _ in range(5):
        next_token = model(seq)[:, -1].argmax(-1, keepdim=True)
        seq = torch.cat([seq, next_token], dim=1)
print(seq.tolist())
print(json.dumps({k: list(v.shape) for k, v in model.state_dict().items() if k.startswith('layers.0')}))
