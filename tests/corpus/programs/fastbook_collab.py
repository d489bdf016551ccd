# Corpus program: fastbook's "Collaborative Filtering Deep Dive" models in plain PyTorch: embeddings as
#   one-hot matmuls, DotProduct with sigmoid_range, DotProductBias, create_params, and the deep CollabNN.
# Source: fastai/fastbook, 08_collab.ipynb (one_hot lookup, DotProduct, sigmoid_range, DotProductBias,
#   create_params with nn.Parameter(torch.zeros(*size).normal_(0, 0.01)), CollabNN, weight decay).
# Licence: GPL-3.0 (fastbook's code); re-written here following the chapter's cells.
# Changes: MovieLens is replaced by 200 made-up ratings from 12 users and 10 movies; fastai's Learner by a
#   plain loop with AdamW-free Adam and weight_decay; 4 epochs.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers); ratings from NumPy.
# corpus-tolerance: rtol=1e-4 -- float32 training.
import numpy as np
import torch
from torch import nn, tensor

rng = np.random.default_rng(0)
torch.manual_seed(0)
n_users, n_movies, n_factors = 12, 10, 5
users = tensor(rng.integers(0, n_users, 200))
movies = tensor(rng.integers(0, n_movies, 200))
ratings = tensor(rng.integers(1, 6, 200).astype(np.float32))
x = torch.stack([users, movies], dim=1)

user_factors = torch.randn(n_users, n_factors)
movie_factors = torch.randn(n_movies, n_factors)
one_hot_3 = nn.functional.one_hot(tensor(3), n_users).float()
print(user_factors.t() @ one_hot_3, user_factors[3])


def sigmoid_range(x, lo, hi): return torch.sigmoid(x) * (hi-lo) + lo


class DotProduct(nn.Module):
    def __init__(self, n_users, n_movies, n_factors, y_range=(0,5.5)):
        super().__init__()
        self.user_factors = nn.Embedding(n_users, n_factors)
        self.movie_factors = nn.Embedding(n_movies, n_factors)
        self.y_range = y_range

    def forward(self, x):
        users = self.user_factors(x[:,0])
        movies = self.movie_factors(x[:,1])
        return sigmoid_range((users * movies).sum(dim=1), *self.y_range)


def create_params(size):
    return nn.Parameter(torch.zeros(*size).normal_(0, 0.01))


class DotProductBias(nn.Module):
    def __init__(self, n_users, n_movies, n_factors, y_range=(0,5.5)):
        super().__init__()
        self.user_factors = create_params([n_users, n_factors])
        self.user_bias = create_params([n_users])
        self.movie_factors = create_params([n_movies, n_factors])
        self.movie_bias = create_params([n_movies])
        self.y_range = y_range

    def forward(self, x):
        users = self.user_factors[x[:,0]]
        movies = self.movie_factors[x[:,1]]
        res = (users*movies).sum(dim=1)
        res += self.user_bias[x[:,0]] + self.movie_bias[x[:,1]]
        return sigmoid_range(res, *self.y_range)


class CollabNN(nn.Module):
    def __init__(self, user_sz, item_sz, y_range=(0,5.5), n_act=20):
        super().__init__()
        self.user_factors = nn.Embedding(*user_sz)
        self.item_factors = nn.Embedding(*item_sz)
        self.layers = nn.Sequential(
            nn.Linear(user_sz[1]+item_sz[1], n_act),
            nn.ReLU(),
            nn.Linear(n_act, 1))
        self.y_range = y_range

    def forward(self, x):
        embs = self.user_factors(x[:,0]),self.item_factors(x[:,1])
        x = self.layers(torch.cat(embs, dim=1))
        return sigmoid_range(x, *self.y_range)


def fit(model, epochs, lr, wd):
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=wd)
    for epoch in range(epochs):
        for i in range(0, 200, 50):
            xb, yb = x[i:i+50], ratings[i:i+50]
            loss = nn.functional.mse_loss(model(xb).view(-1), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, round(loss.item(), 4))


for model in (DotProduct(n_users, n_movies, 50), DotProductBias(n_users, n_movies, 50),
              CollabNN((n_users, 6), (n_movies, 5))):
    fit(model, 4, 5e-3, 0.1)
model = DotProductBias(n_users, n_movies, 50)
fit(model, 2, 5e-3, 0.1)
movie_bias = model.movie_bias.squeeze()
idxs = movie_bias.argsort()[:3]
print(idxs, movie_bias.argsort(descending=True)[:3])
print(model.movie_factors.shape, model.movie_factors[idxs].norm(dim=1) > 0)
distances = nn.CosineSimilarity(dim=1)(model.movie_factors, model.movie_factors[3][None])
print(distances.argsort(descending=True)[1])
