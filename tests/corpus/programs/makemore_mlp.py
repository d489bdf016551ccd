# Corpus program: makemore part 2, the MLP language model of Bengio et al.: an embedding table C,
#   a tanh hidden layer, cross entropy, minibatch SGD, and the train/dev/test splits.
# Source: karpathy/nn-zero-to-hero, lectures/makemore/makemore_part2_mlp.ipynb
# Licence: MIT (nn-zero-to-hero); re-written here following the lecture's steps.
# Changes: names.txt is replaced by 64 names written here; 150 steps instead of 200000; minibatch
#   indices and the parameters come from NumPy (torch.randint/torch.randn with a generator draw
#   from different streams in the two libraries); sampling is left out for the same reason.
# Randomness: parameters, the word shuffle and the minibatches all come from NumPy.
# corpus-tolerance: rtol=1e-4 -- 150 SGD steps through tanh in float32.
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
itos = {i: s for s, i in stoi.items()}

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
    X = torch.tensor(X)
    Y = torch.tensor(Y)
    print(X.shape, Y.shape)
    return X, Y


random.seed(42)
random.shuffle(words)
n1 = int(0.8 * len(words))
n2 = int(0.9 * len(words))
Xtr, Ytr = build_dataset(words[:n1])
Xdev, Ydev = build_dataset(words[n1:n2])
Xte, Yte = build_dataset(words[n2:])

rng = np.random.default_rng(2147483647)


def randn(*shape):
    return torch.tensor(rng.standard_normal(shape), dtype=torch.float32)


C = randn(27, 10)
W1 = randn(30, 200) * 0.2
b1 = randn(200) * 0.01
W2 = randn(200, 27) * 0.01
b2 = randn(27) * 0
parameters = [C, W1, b1, W2, b2]
print(sum(p.nelement() for p in parameters))
for p in parameters:
    p.requires_grad = True

lossi = []
stepi = []
for i in range(150):
    ix = torch.tensor(rng.integers(0, Xtr.shape[0], (32,)))
    emb = C[Xtr[ix]]
    h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
    logits = h @ W2 + b2
    loss = F.cross_entropy(logits, Ytr[ix])
    for p in parameters:
        p.grad = None
    loss.backward()
    lr = 0.1 if i < 100 else 0.01
    for p in parameters:
        p.data += -lr * p.grad
    stepi.append(i)
    lossi.append(loss.log10().item())
    if i % 100 == 0:
        print(i, f"{loss.item():.4f}")

emb = C[Xtr]
h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, Ytr)
print(f"train {loss.item():.4f}")
emb = C[Xdev]
h = torch.tanh(emb.view(-1, 30) @ W1 + b1)
logits = h @ W2 + b2
loss = F.cross_entropy(logits, Ydev)
print(f"dev {loss.item():.4f}")
print(f"{sum(lossi) / len(lossi):.4f}")
