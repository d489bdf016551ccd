# Corpus program: micrograd's tests, the PyTorch halves: the expressions micrograd's Value engine is
#   checked against, computed with torch in float64.
# Source: karpathy/micrograd, test/test_engine.py (test_sanity_check, test_more_ops)
# Licence: MIT (micrograd); re-written here following the tests' expressions.
# Changes: the micrograd halves are left out (micrograd is not installed); the values the tests
#   compare are printed instead of asserted.
# Randomness: none.
import torch


def test_sanity_check():
    x = torch.Tensor([-4.0]).double()
    x.requires_grad = True
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    xpt, ypt = x, y
    print(ypt.data.item(), xpt.grad.item())


def test_more_ops():
    a = torch.Tensor([-4.0]).double()
    b = torch.Tensor([2.0]).double()
    a.requires_grad = True
    b.requires_grad = True
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + (b + a).relu()
    d = d + 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    g.backward()
    apt, bpt, gpt = a, b, g
    print(f"{gpt.data.item():.6f} {apt.grad.item():.6f} {bpt.grad.item():.6f}")


test_sanity_check()
test_more_ops()
