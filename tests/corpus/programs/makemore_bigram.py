# Corpus program: makemore part 1, the bigram character model: counts, probabilities, the negative
#   log likelihood, then the same model as a one-layer neural net trained by gradient descent.
# Source: karpathy/nn-zero-to-hero, lectures/makemore/makemore_part1_bigrams.ipynb
# Licence: MIT (nn-zero-to-hero); re-written here following the lecture's steps.
# Changes: names.txt (a download) is replaced by 64 common first names written here; sampling
#   names with torch.multinomial is left out (the libraries' random streams differ); W starts
#   from NumPy instead of torch.randn(generator=g); 20 gradient steps instead of 100.
# Randomness: W from NumPy; everything else is counting.
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
print(words[:10])
print(len(words))
print(min(len(w) for w in words), max(len(w) for w in words))

N = torch.zeros((27, 27), dtype=torch.int32)
chars = sorted(list(set("".join(words))))
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
itos = {i: s for s, i in stoi.items()}
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        N[ix1, ix2] += 1
print(N[0])
p = N[0].float()
p = p / p.sum()
print(p)

P = (N + 1).float()
P /= P.sum(1, keepdims=True)
print(P[0].sum(), P.shape)

log_likelihood = 0.0
n = 0
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        ix1 = stoi[ch1]
        ix2 = stoi[ch2]
        prob = P[ix1, ix2]
        logprob = torch.log(prob)
        log_likelihood += logprob
        n += 1
print(f"{log_likelihood=}")
nll = -log_likelihood
print(f"{nll=}")
print(f"{nll/n}")

xs, ys = [], []
for w in words:
    chs = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(chs, chs[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs = torch.tensor(xs)
ys = torch.tensor(ys)
num = xs.nelement()
print("number of examples: ", num)

W = torch.tensor(np.random.default_rng(2147483647).standard_normal((27, 27)), dtype=torch.float32,
                 requires_grad=True)
for k in range(20):
    xenc = F.one_hot(xs, num_classes=27).float()
    logits = xenc @ W
    counts = logits.exp()
    probs = counts / counts.sum(1, keepdims=True)
    loss = -probs[torch.arange(num), ys].log().mean() + 0.01 * (W**2).mean()
    if k % 5 == 0:
        print(f"{loss.item():.4f}")
    W.grad = None
    loss.backward()
    W.data += -50 * W.grad
print(f"{loss.item():.4f}")
