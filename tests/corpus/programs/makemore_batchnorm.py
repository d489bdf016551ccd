# Corpus program: makemore part 3, activations, gradients and BatchNorm: the lecture's own Linear,
#   BatchNorm1d and Tanh classes, kaiming-scaled init, the saturation and update-ratio statistics.
# Source: karpathy/nn-zero-to-hero, lectures/makemore/makemore_part3_bn.ipynb
# Licence: MIT (nn-zero-to-hero); re-written here following the lecture's steps.
# Changes: 64 names written here instead of names.txt; 3 hidden layers of 50; 60 steps instead of
#   200000; weights and minibatch indices from NumPy instead of torch.randn/randint(generator=g).
# Randomness: weights and minibatches from NumPy.
# corpus-tolerance: rtol=1e-3 atol=1e-4 -- statistics of tanh activations after batch norm, whose
#   variance divides small float32 differences; the printed ones agree to about 1e-4.
import random

import numpy as np
import torch
import torch.nn.functional as F

words = (
    "emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily elizabeth mila ella "
    "avery sofia camila aria scarlett victoria madison luna grace chloe penelope layla riley zoey nora "
    "lily eleanor hannah lillian addison aubrey ellie stella natalie zoe leah hazel violet aurora "
    "savannah audrey brooklyn bella claire skylar lucy paisley everly anna caroline nova genesis emilia "
    "kennedy"
).split()
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
vocab_size = len(stoi)
block_size = 3


def build_dataset(words):
    X, Y = [], []
    for w in words:
        context = [0] * block_size
        for ch in w + ".":
            ix = stoi[ch]
            X.append(context)
            Y.append(ix)
            context = context[1:] + [ix]
    return torch.tensor(X), torch.tensor(Y)


random.seed(42)
random.shuffle(words)
Xtr, Ytr = build_dataset(words[:int(0.8 * len(words))])
rng = np.random.default_rng(2147483647)


def randn(*shape):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float32)


class Linear:
    def __init__(self, fan_in, fan_out, bias=True):
        self.weight = randn(fan_in, fan_out) / fan_in**0.5
        self.bias = torch.zeros(fan_out) if bias else None

    def __call__(self, x):
        self.out = x @ self.weight
        if self.bias is not None:
            self.out += self.bias
        return self.out

    def parameters(self):
        return [self.weight] + ([] if self.bias is None else [self.bias])


class BatchNorm1d:
    def __init__(self, dim, eps=1e-5, momentum=0.1):
        self.eps = eps
        self.momentum = momentum
        self.training = True
        self.gamma = torch.ones(dim)
        self.beta = torch.zeros(dim)
        self.running_mean = torch.zeros(dim)
        self.running_var = torch.ones(dim)

    def __call__(self, x):
        if self.training:
            xmean = x.mean(0, keepdim=True)
            xvar = x.var(0, keepdim=True)
        else:
            xmean = self.running_mean
            xvar = self.running_var
        xhat = (x - xmean) / torch.sqrt(xvar + self.eps)
        self.out = self.gamma * xhat + self.beta
        if self.training:
            with torch.no_grad():
                self.running_mean = (1 - self.momentum) * self.running_mean + self.momentum * xmean
                self.running_var = (1 - self.momentum) * self.running_var + self.momentum * xvar
        return self.out

    def parameters(self):
        return [self.gamma, self.beta]


class Tanh:
    def __call__(self, x):
        self.out = torch.tanh(x)
        return self.out

    def parameters(self):
        return []


n_embd = 10
n_hidden = 50
C = randn(vocab_size, n_embd)
layers = [
    Linear(n_embd * block_size, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    Linear(n_hidden, n_hidden, bias=False), BatchNorm1d(n_hidden), Tanh(),
    Linear(n_hidden, vocab_size, bias=False), BatchNorm1d(vocab_size),
]
with torch.no_grad():
    layers[-1].gamma *= 0.1
    for layer in layers[:-1]:
        if isinstance(layer, Linear):
            layer.weight *= 5 / 3
parameters = [C] + [p for layer in layers for p in layer.parameters()]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

max_steps = 60
batch_size = 32
lossi = []
ud = []
for i in range(max_steps):
    ix = torch.tensor(rng.integers(0, Xtr.shape[0], (batch_size,)))
    Xb, Yb = Xtr[ix], Ytr[ix]
    emb = C[Xb]
    x = emb.view(emb.shape[0], -1)
    for layer in layers:
        x = layer(x)
    loss = F.cross_entropy(x, Yb)
    for layer in layers:
        layer.out.retain_grad()
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 40 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    if i % 20 == 0:
        print(f"{i:7d}/{max_steps:7d}: {loss.item():.4f}")
    lossi.append(loss.log10().item())
    with torch.no_grad():
        ud.append([((lr * p.grad).std() / p.data.std()).log10().item() for p in parameters])

for i, layer in enumerate(layers[:-1]):
    if isinstance(layer, Tanh):
        t = layer.out
        print(f"layer {i} ({layer.__class__.__name__:10s}): mean {t.mean():+.2f}, std {t.std():.2f}, "
              f"saturated: {(t.abs() > 0.97).float().mean() * 100:.2f}%")
for i, layer in enumerate(layers[:-1]):
    if isinstance(layer, Tanh):
        t = layer.out.grad
        print(f"layer {i} ({layer.__class__.__name__:10s}): mean {t.mean():+f}, std {t.std():e}")
for i, p in enumerate(parameters):
    if p.ndim == 2:
        print(f"weight {tuple(p.shape)!s:10s} | mean {p.grad.mean():+f} | std {p.grad.std():e} | "
              f"grad:data ratio {p.grad.std() / p.std():e}")
print([f"{r:.2f}" for r in ud[-1]])
