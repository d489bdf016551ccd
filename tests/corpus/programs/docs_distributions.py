# Corpus program: the Examples of torch.distributions' docstrings and its documented score-function and pathwise
#   estimators (Categorical, Bernoulli, Normal with rsample, Uniform, Beta, Gamma, Dirichlet, MultivariateNormal,
#   Independent, OneHotCategorical, Poisson, Exponential, Laplace, kl_divergence, log_prob, entropy, REINFORCE-style
#   loss).
# Source: pytorch/pytorch, torch/distributions/__init__.py (the module docstring's score function and pathwise
#   derivative examples) and the Example:: sections of torch/distributions/*.py.
# Licence: BSD-3-Clause (PyTorch); the docstrings' examples, put together in one script.
# Changes: the environment of the REINFORCE example is a fixed reward; values printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 arithmetic.
import torch
from torch.distributions import (
    Bernoulli,
    Beta,
    Categorical,
    Dirichlet,
    Exponential,
    Gamma,
    Independent,
    Laplace,
    MultivariateNormal,
    Normal,
    OneHotCategorical,
    Poisson,
    Uniform,
    kl_divergence,
)

torch.manual_seed(0)
m = Categorical(torch.tensor([0.25, 0.25, 0.25, 0.25]))
print(m.sample(), m.sample((3,)), m.entropy(), m.log_prob(torch.tensor([0, 3])))
probs = torch.softmax(torch.randn(2, 4, requires_grad=True), dim=-1)
m = Categorical(probs)
action = m.sample()
reward = torch.tensor([1.0, -0.5])
loss = -m.log_prob(action) * reward
loss.sum().backward()
print(action, loss)
params = torch.randn(3, requires_grad=True)
m = Normal(params, torch.ones(3))
action = m.rsample()
(action * 2).sum().backward()
print(action, params.grad)
m = Bernoulli(torch.tensor([0.3]))
print(m.sample(), m.mean, m.variance, Bernoulli(logits=torch.tensor([0.0, 2.0])).probs)
m = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
print(m.sample(), m.cdf(torch.tensor([0.5])), m.icdf(torch.tensor([0.975])), m.log_prob(torch.tensor([1.0])))
m = Uniform(torch.tensor([0.0]), torch.tensor([5.0]))
print(m.sample(), m.log_prob(torch.tensor([2.0])), m.entropy())
m = Beta(torch.tensor([0.5]), torch.tensor([0.5]))
print(m.mean, m.log_prob(torch.tensor([0.3])))
m = Gamma(torch.tensor([1.0]), torch.tensor([1.0]))
print(m.mean, m.variance, m.log_prob(torch.tensor([2.0])))
m = Dirichlet(torch.tensor([0.5, 0.5]))
print(m.mean, m.log_prob(torch.tensor([0.2, 0.8])))
m = MultivariateNormal(torch.zeros(2), torch.eye(2))
print(m.sample(), m.log_prob(torch.tensor([0.5, -0.5])), m.entropy())
m = MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1.0, 0.0], [0.5, 2.0]]))
print(m.covariance_matrix, m.rsample((2,)).shape)
normal = Normal(torch.zeros(3, 2), torch.ones(3, 2))
diagn = Independent(normal, 1)
print([normal.batch_shape, normal.event_shape], [diagn.batch_shape, diagn.event_shape],
      diagn.log_prob(torch.zeros(3, 2)))
m = OneHotCategorical(torch.tensor([0.25, 0.25, 0.25, 0.25]))
print(m.sample(), m.log_prob(torch.tensor([0., 1., 0., 0.])))
print(Poisson(torch.tensor([4.])).log_prob(torch.tensor([2.])), Exponential(torch.tensor([1.0])).log_prob(torch.tensor([0.5])),
      Laplace(torch.tensor([0.0]), torch.tensor([1.0])).log_prob(torch.tensor([0.5])))
p = Normal(torch.tensor([0.0]), torch.tensor([1.0]))
q = Normal(torch.tensor([1.0]), torch.tensor([2.0]))
print(kl_divergence(p, q), kl_divergence(Categorical(logits=torch.zeros(3)), Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))))
print(Normal(0., 1.).expand([2]).batch_shape, Categorical(logits=torch.zeros(2, 3)).enumerate_support().shape)
