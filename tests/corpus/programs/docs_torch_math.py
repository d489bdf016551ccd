# Corpus program: the Examples of torch's pointwise math in PyTorch's reference and the constants torch.pi, torch.e,
#   torch.inf, torch.nan (lerp, clamp with tensors, nan_to_num, logaddexp, hypot, copysign, fmod, remainder,
#   floor_divide, true_divide with rounding_mode, frac, trunc, sgn, heaviside, xlogy,
#   special.expit/logit/erfinv/entr/ndtr/log_ndtr/sinc/i0, polygamma, lgamma, digamma, logit with eps, addcmul, addcdiv,
#   isclose, allclose, signbit, nextafter, ldexp, float_power).
# Source: pytorch/pytorch, torch/_torch_docs.py and torch/special/__init__.py (the Example:: section of each docstring).
# Licence: BSD-3-Clause (PyTorch); the docstrings' examples, put together in one script.
# Changes: each example runs once; sgn's example on complex numbers is left out (minitorch has no complex dtypes).
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: atol=1e-4 -- logaddexp2(-1, -1) is 0 within float32 rounding; PyTorch prints -1.0602e-08 and so
#   the whole tensor in scientific notation (5 significant digits), minitorch 0.0000 and 4 decimals.
import math

import torch

torch.manual_seed(0)
print(torch.pi == math.pi, torch.e == math.e, torch.inf, -torch.inf, torch.nan != torch.nan)
start = torch.arange(1., 5.)
end = torch.empty(4).fill_(10)
print(torch.lerp(start, end, 0.5), torch.lerp(start, end, torch.full_like(start, 0.5)))
a = torch.randn(4)
print(torch.clamp(a, min=-0.5, max=0.5), torch.clamp(a, min=torch.linspace(-1, 1, steps=4)))
x = torch.tensor([float('nan'), float('inf'), -float('inf'), 3.14])
print(torch.nan_to_num(x), torch.nan_to_num(x, nan=2.0), torch.nan_to_num(x, nan=2.0, posinf=1.0))
print(torch.logaddexp(torch.tensor([-1.0]), torch.tensor([-1.0, -2, -3])),
      torch.logaddexp(torch.tensor([-100.0, -200, -300]), torch.tensor([-1.0, -2, -3])),
      torch.logaddexp2(torch.tensor([-1.0]), torch.tensor([-1.0, -2, -3])))
print(torch.hypot(torch.tensor([4.0]), torch.tensor([3.0, 4.0, 5.0])))
a = torch.randn(5)
print(torch.copysign(a, 1), torch.copysign(a, -0.))
print(torch.fmod(torch.tensor([-3., -2, -1, 1, 2, 3]), 2), torch.fmod(torch.tensor([1, 2, 3, 4, 5]), -1.5))
print(torch.remainder(torch.tensor([-3., -2, -1, 1, 2, 3]), 2), torch.remainder(torch.tensor([1, 2, 3, 4, 5]), -1.5))
a = torch.tensor([4.0, 3.0])
b = torch.tensor([2.0, 2.0])
print(torch.floor_divide(a, b), torch.floor_divide(a, 1.4))
x = torch.tensor([[-0.3711, -1.9353, -0.4605, -0.2917], [0.1815, -1.0111, 0.9805, -1.5923]])
y = torch.tensor([0.5, 0.7, -0.2, 1.2])
print(torch.div(x, y, rounding_mode='trunc'), torch.div(x, y, rounding_mode='floor'), torch.true_divide(x, 0.5))
print(torch.frac(torch.tensor([1, 2.5, -3.2])), torch.trunc(torch.tensor([3.4742, 0.5466, -0.8008, -0.9079])))
input = torch.tensor([-1.5, 0, 2.0])
values = torch.tensor([0.5])
print(torch.heaviside(input, values), torch.heaviside(input, torch.tensor([1.2, -2.0, 3.5])))
x = torch.zeros(5,)
y = torch.tensor([-1, 0, 1, float('inf'), float('nan')])
print(torch.xlogy(x, y), torch.xlogy(torch.tensor([1, 2, 3]), torch.tensor([3, 2, 1])), torch.xlogy(2, torch.tensor([3, 2, 1])))
t = torch.randn(4)
print(torch.special.expit(t), torch.special.logit(torch.rand(5), eps=1e-6), torch.logit(torch.tensor([0.25, 0.5]), eps=1e-6))
print(torch.special.erfinv(torch.tensor([0, 0.5, -1.])), torch.special.entr(torch.arange(-0.5, 1, 0.5)))
print(torch.special.ndtr(torch.tensor([-3., -2, -1, 0, 1, 2, 3])), torch.special.log_ndtr(torch.tensor([-3., -2, -1, 0, 1, 2, 3])))
print(torch.special.sinc(torch.tensor([0., 0.5, 1.])), torch.special.i0(torch.arange(5, dtype=torch.float32)))
a = torch.tensor([1, 0.5])
print(torch.special.polygamma(1, a), torch.special.polygamma(2, a), torch.lgamma(torch.arange(0.5, 2, 0.5)),
      torch.digamma(torch.tensor([1, 0.5])))
print(torch.special.xlog1py(torch.tensor([1., 2.]), torch.tensor([3., 4.])), torch.special.log1p(torch.tensor([1e-8])),
      torch.special.softmax(torch.tensor([[1., 2.]]), 1), torch.special.logsumexp(torch.tensor([1., 2.]), 0))
t = torch.randn(1, 3)
t1 = torch.randn(3, 1)
t2 = torch.randn(1, 3)
print(torch.addcmul(t, t1, t2, value=0.1), torch.addcdiv(t, t1, t2, value=0.1))
print(torch.isclose(torch.tensor((1., 2, 3)), torch.tensor((1 + 1e-10, 3, 4))),
      torch.isclose(torch.tensor((float('inf'), 4)), torch.tensor((float('inf'), 6)), rtol=.5),
      torch.allclose(torch.tensor([10000e10, 1e-07]), torch.tensor([10000.1e10, 1e-08])),
      torch.allclose(torch.tensor([1.0, float('nan')]), torch.tensor([1.0, float('nan')]), equal_nan=True))
print(torch.signbit(torch.tensor([0.7, -1.2, 0., 2.3])), torch.signbit(torch.tensor([-0.0, 0.0])))
eps = torch.finfo(torch.float32).eps
print(torch.nextafter(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 1.0])) == torch.tensor([eps + 1, 2 - eps]))
print(torch.ldexp(torch.tensor([1.]), torch.tensor([1])), torch.ldexp(torch.tensor([1.0]), torch.tensor([1, 2, 3, 4])))
print(torch.float_power(torch.randint(10, (4,)), 2), torch.float_power(torch.arange(1, 5), torch.tensor([2, -3, 4, -5])))
print(torch.exp2(torch.tensor([0, math.log2(2.), 3, 4])), torch.expm1(torch.tensor([0, math.log(2.)])),
      torch.log10(torch.rand(5)), torch.rsqrt(torch.tensor([4.0, 0.25])), torch.square(torch.tensor([-2, 3])))
print(torch.deg2rad(torch.tensor([[180.0, -180.0], [360.0, -360.0]])), torch.rad2deg(torch.tensor([3.142, -3.142])),
      torch.atan2(torch.tensor([0.9041, 0.0196]), torch.tensor([-0.3108, -2.4423])))
print(torch.round(torch.tensor([4.7, -2.3, 9.1, -7.7])), torch.round(torch.tensor([-0.5, 0.5, 1.5, 2.5])),
      torch.round(torch.tensor([0.1234567]), decimals=3), torch.round(torch.tensor([1200.1234567]), decimals=-3))
print(torch.gcd(torch.tensor([5, 10, 15]), torch.tensor([3, 4, 5])), torch.lcm(torch.tensor([5, 10, 15]), torch.tensor([3, 4, 5])))
print(torch.bitwise_and(torch.tensor([-1, -2, 3], dtype=torch.int8), torch.tensor([1, 0, 3], dtype=torch.int8)),
      torch.bitwise_xor(torch.tensor([True, True, False]), torch.tensor([False, True, False])),
      torch.bitwise_left_shift(torch.tensor([-1, -2, 3], dtype=torch.int8), torch.tensor([1, 0, 3], dtype=torch.int8)))
print(torch.logical_xor(torch.tensor([0, 1, 10, 0]), torch.tensor([4, 0, 1, 0])), torch.logical_not(torch.tensor([0., 1.5, -10.])))
print(torch.sigmoid(torch.randn(4)), torch.erfc(torch.tensor([0, -1., 10.])), torch.mvlgamma(torch.tensor([[2.5, 3.0]]), 2))
