# Corpus program: tutorial "(Beta) Implementing High-Performance Transformers with Scaled Dot
#   Product Attention (SDPA)": the functional call, the CausalSelfAttention module, and the
#   explicit formula it replaces.
# Source: pytorch/tutorials, intermediate_source/scaled_dot_product_attention_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: CUDA and the backend-selection timings (sdpa_kernel, benchmark_torch_function_in_
#   microseconds) are left out; sizes are shrunk; dropout is 0 so outputs are deterministic;
#   torch.rand/randn draws come from NumPy; the NestedTensor part is left out.
# Randomness: all tensors and weights from NumPy.
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(68)
device = "cuda" if torch.cuda.is_available() else "cpu"


def rand(*shape):
    return torch.tensor(rng.random(shape), dtype=torch.float32, device=device)


# Example Usage:
query, key, value = rand(2, 3, 8), rand(2, 3, 8), rand(2, 3, 8)
print(F.scaled_dot_product_attention(query, key, value))


class CausalSelfAttention(nn.Module):

    def __init__(self, num_heads: int, embed_dimension: int, bias: bool = False, is_causal: bool = False,
                 dropout: float = 0.0):
        super().__init__()
        assert embed_dimension % num_heads == 0
        # key, query, value projections for all heads, but in a batch
        self.c_attn = nn.Linear(embed_dimension, 3 * embed_dimension, bias=bias)
        # output projection
        self.c_proj = nn.Linear(embed_dimension, embed_dimension, bias=bias)
        # regularization
        self.dropout = dropout
        self.resid_dropout = nn.Dropout(dropout)
        self.num_heads = num_heads
        self.embed_dimension = embed_dimension
        # Perform causal masking
        self.is_causal = is_causal

    def forward(self, x):
        # calculate query, key, values for all heads in batch and move head forward to be the batch dim
        query_projected = self.c_attn(x)

        batch_size = query_projected.size(0)
        embed_dim = query_projected.size(2)
        head_dim = embed_dim // (self.num_heads * 3)

        query, key, value = query_projected.chunk(3, -1)
        query = query.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        key = key.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)
        value = value.view(batch_size, -1, self.num_heads, head_dim).transpose(1, 2)

        if self.training:
            dropout = self.dropout
            is_causal = self.is_causal
        else:
            dropout = 0.0
            is_causal = False

        y = F.scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=dropout, is_causal=is_causal)
        y = y.transpose(1, 2).view(batch_size, -1, self.num_heads * head_dim)

        y = self.resid_dropout(self.c_proj(y))
        return y


num_heads = 4
heads_per_dim = 8
embed_dimension = num_heads * heads_per_dim
dtype = torch.float32
model = CausalSelfAttention(num_heads=num_heads, embed_dimension=embed_dimension, bias=False, is_causal=True,
                            dropout=0.0).to(dtype).to(device).eval()
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.tensor(rng.uniform(-0.2, 0.2, tuple(p.shape)), dtype=dtype))
print(model)

x = rand(2, 5, embed_dimension)
model.train()
causal = model(x)
model.eval()
full = model(x)
print(causal.shape, f"{causal.sum().item():.5f}", f"{full.sum().item():.5f}")

# The explicit formula that scaled_dot_product_attention computes.
q, k, v = rand(2, 4, 6, 8), rand(2, 4, 6, 8), rand(2, 4, 6, 8)
scale = 1 / math.sqrt(q.size(-1))
mask = torch.ones(6, 6, dtype=torch.bool).tril(diagonal=0)
weights = (q @ k.transpose(-2, -1) * scale).masked_fill(mask.logical_not(), float("-inf")).softmax(dim=-1)
explicit = weights @ v
fused = F.scaled_dot_product_attention(q, k, v, is_causal=True)
print(torch.allclose(explicit, fused, atol=1e-6), explicit[0, 0, :2])
boolean_mask = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
print(torch.allclose(boolean_mask, fused, atol=1e-6))
q.requires_grad_(True)
F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().backward()
print(q.grad.shape, f"{q.grad.abs().sum().item():.5f}")
