# Corpus program: d2l's optimization algorithms from scratch (current edition): minibatch SGD, momentum, AdaGrad,
#   RMSProp, Adadelta and Adam written as functions of (params, states, hyperparams) with init_*_states, run on a linear
#   model, and their torch.optim counterparts.
# Source: d2l-ai/d2l-en, chapter_optimization/minibatch-sgd.md, momentum.md, adagrad.md, rmsprop.md, adadelta.md and
#   adam.md (PyTorch tabs: sgd, init_momentum_states/sgd_momentum, init_adagrad_states/adagrad,
#   init_rmsprop_states/rmsprop, init_adadelta_states/adadelta, init_adam_states/adam, train_ch11, train_concise_ch11).
# Licence: the airfoil data are replaced by 64 random examples with 5 features; 1 epoch of batches of 16; losses
#   printed per algorithm.
# Changes:
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 training.
import math

import torch
from torch import nn

torch.manual_seed(0)
features = torch.randn(64, 5)
labels = features @ torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0]) + 0.3 + 0.01 * torch.randn(64)
feature_dim = 5


def sgd(params, states, hyperparams):
    for p in params:
        p.data.sub_(hyperparams['lr'] * p.grad)
        p.grad.data.zero_()


def init_momentum_states(feature_dim):
    v_w = torch.zeros((feature_dim, 1))
    v_b = torch.zeros(1)
    return (v_w, v_b)


def sgd_momentum(params, states, hyperparams):
    for p, v in zip(params, states):
        with torch.no_grad():
            v[:] = hyperparams['momentum'] * v + p.grad
            p[:] -= hyperparams['lr'] * v
        p.grad.data.zero_()


def init_adagrad_states(feature_dim):
    s_w = torch.zeros((feature_dim, 1))
    s_b = torch.zeros(1)
    return (s_w, s_b)


def adagrad(params, states, hyperparams):
    eps = 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] += torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_rmsprop_states(feature_dim):
    s_w = torch.zeros((feature_dim, 1))
    s_b = torch.zeros(1)
    return (s_w, s_b)


def rmsprop(params, states, hyperparams):
    gamma, eps = hyperparams['gamma'], 1e-6
    for p, s in zip(params, states):
        with torch.no_grad():
            s[:] = gamma * s + (1 - gamma) * torch.square(p.grad)
            p[:] -= hyperparams['lr'] * p.grad / torch.sqrt(s + eps)
        p.grad.data.zero_()


def init_adadelta_states(feature_dim):
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    delta_w, delta_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((s_w, delta_w), (s_b, delta_b))


def adadelta(params, states, hyperparams):
    rho, eps = hyperparams['rho'], 1e-5
    for p, (s, delta) in zip(params, states):
        with torch.no_grad():
            # In-place updates via [:]
            s[:] = rho * s + (1 - rho) * torch.square(p.grad)
            g = (torch.sqrt(delta + eps) / torch.sqrt(s + eps)) * p.grad
            p[:] -= g
            delta[:] = rho * delta + (1 - rho) * g * g
        p.grad.data.zero_()


def init_adam_states(feature_dim):
    v_w, v_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    s_w, s_b = torch.zeros((feature_dim, 1)), torch.zeros(1)
    return ((v_w, s_w), (v_b, s_b))


def adam(params, states, hyperparams):
    beta1, beta2, eps = 0.9, 0.999, 1e-6
    for p, (v, s) in zip(params, states):
        with torch.no_grad():
            v[:] = beta1 * v + (1 - beta1) * p.grad
            s[:] = beta2 * s + (1 - beta2) * torch.square(p.grad)
            v_bias_corr = v / (1 - beta1 ** hyperparams['t'])
            s_bias_corr = s / (1 - beta2 ** hyperparams['t'])
            p[:] -= hyperparams['lr'] * v_bias_corr / (torch.sqrt(s_bias_corr)
                                                       + eps)
        p.grad.data.zero_()
    hyperparams['t'] += 1


def linreg(X, w, b):
    return torch.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2


def train_ch11(trainer_fn, states, hyperparams, feature_dim, num_epochs=1):
    # Initialization
    w = torch.normal(mean=0.0, std=0.01, size=(feature_dim, 1), requires_grad=True)
    b = torch.zeros((1), requires_grad=True)
    net, loss = lambda X: linreg(X, w, b), squared_loss
    losses = []
    for _ in range(num_epochs):
        for i in range(0, 64, 16):
            X, y = features[i:i + 16], labels[i:i + 16]
            l = loss(net(X), y).mean()
            l.backward()
            trainer_fn([w, b], states, hyperparams)
            losses.append(round(loss(net(features), labels).mean().item(), 5))
    print(trainer_fn.__name__, losses)
    return w, b


train_ch11(sgd, None, {'lr': 0.05}, feature_dim)
train_ch11(sgd_momentum, init_momentum_states(feature_dim), {'lr': 0.02, 'momentum': 0.5}, feature_dim)
train_ch11(adagrad, init_adagrad_states(feature_dim), {'lr': 0.1}, feature_dim)
train_ch11(rmsprop, init_rmsprop_states(feature_dim), {'lr': 0.01, 'gamma': 0.9}, feature_dim)
train_ch11(adadelta, init_adadelta_states(feature_dim), {'rho': 0.9}, feature_dim)
train_ch11(adam, init_adam_states(feature_dim), {'lr': 0.01, 't': 1}, feature_dim)


def train_concise_ch11(trainer_fn, hyperparams, num_epochs=1):
    # Initialization
    net = nn.Sequential(nn.Linear(5, 1))

    def init_weights(module):
        if type(module) == nn.Linear:
            torch.nn.init.normal_(module.weight, std=0.01)

    net.apply(init_weights)
    optimizer = trainer_fn(net.parameters(), **hyperparams)
    loss = nn.MSELoss(reduction='none')
    losses = []
    for _ in range(num_epochs):
        for i in range(0, 64, 16):
            X, y = features[i:i + 16], labels[i:i + 16]
            optimizer.zero_grad()
            out = net(X)
            y = y.reshape(out.shape)
            l = loss(out, y)
            l.mean().backward()
            optimizer.step()
            losses.append(round(loss(net(features), labels.reshape(-1, 1)).mean().item() / 2, 5))
    print(trainer_fn.__name__, losses)


train_concise_ch11(torch.optim.SGD, {'lr': 0.01, 'momentum': 0.9})
train_concise_ch11(torch.optim.Adagrad, {'lr': 0.1})
train_concise_ch11(torch.optim.RMSprop, {'lr': 0.01, 'alpha': 0.9})
train_concise_ch11(torch.optim.Adadelta, {'rho': 0.9})
train_concise_ch11(torch.optim.Adam, {'lr': 0.01})
print(math.isclose(0.9 ** 2, 0.81))
