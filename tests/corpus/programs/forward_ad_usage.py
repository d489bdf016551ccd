# Corpus program: tutorial "Forward-mode Automatic Differentiation (Beta)": dual tensors with
#   torch.autograd.forward_ad, modules, custom Functions, and the functorch API (torch.func.jvp).
# Source: pytorch/tutorials, intermediate_source/forward_ad_usage.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: torch.randn draws come from NumPy; the gradcheck of the custom function is kept, the
#   functorch jvp of a module's parameters (functional_call) is kept.
# Randomness: all tensors and weights from NumPy.
import numpy as np
import torch
import torch.autograd.forward_ad as fwAD

rng = np.random.default_rng(71)


def randn(*shape, dtype=torch.float32):
    return torch.tensor(rng.standard_normal(shape), dtype=dtype)


primal = randn(10, 10)
tangent = randn(10, 10)


def fn(x, y):
    return x ** 2 + y ** 2


# All forward AD computation must be performed in the context of
# a ``dual_level`` context. All dual tensors created in such a context
# will have their tangents destroyed upon exit. This is to ensure that
# if the output or intermediate results of this computation are reused
# in a future forward AD computation, their tangents (which are associated
# with this computation) won't be confused with tangents from a later
# computation.
with fwAD.dual_level():
    # To create a dual tensor we associate a tensor, which we call the
    # primal with another tensor of the same size, which we call the tangent.
    # If the layout of the tangent is different from that of the primal,
    # The values of the tangent are copied into a new tensor with the same
    # metadata as the primal. Otherwise, the tangent itself is used as-is.
    #
    # It is also important to note that the dual tensor created by
    # ``make_dual`` is a view of the primal.
    dual_input = fwAD.make_dual(primal, tangent)
    assert fwAD.unpack_dual(dual_input).tangent is tangent

    # To demonstrate the case where the copy of the tangent happens,
    # we pass in a tangent with a layout different from that of the primal
    dual_input_alt = fwAD.make_dual(primal, tangent.T)
    assert fwAD.unpack_dual(dual_input_alt).tangent is not tangent

    # Tensors that do not have an associated tangent are automatically
    # considered to have a zero-filled tangent of the same shape.
    plain_tensor = randn(10, 10)
    dual_output = fn(dual_input, plain_tensor)

    # Unpacking the dual returns a ``namedtuple`` with ``primal`` and ``tangent``
    # as attributes
    jvp = fwAD.unpack_dual(dual_output).tangent

assert fwAD.unpack_dual(dual_output).tangent is None
print(torch.allclose(jvp, 2 * primal * tangent), f"{jvp.sum().item():.4f}")

import torch.nn as nn  # noqa: E402 - as in the tutorial

model = nn.Linear(5, 5)
with torch.no_grad():
    model.weight.copy_(randn(5, 5))
    model.bias.copy_(randn(5))
input = randn(16, 5)

params = {name: p for name, p in model.named_parameters()}
tangents = {name: torch.rand_like(p) for name, p in params.items()}
tangents = {name: randn(*p.shape) for name, p in params.items()}

with fwAD.dual_level():
    for name, p in params.items():
        delattr(model, name)
        setattr(model, name, fwAD.make_dual(p, tangents[name]))

    out = model(input)
    jvp = fwAD.unpack_dual(out).tangent
print(jvp.shape, f"{jvp.sum().item():.4f}")

from torch.func import functional_call  # noqa: E402

# We need a fresh module because the functional call requires the
# the model to have parameters registered.
model = nn.Linear(5, 5)
with torch.no_grad():
    model.weight.copy_(params["weight"])
    model.bias.copy_(params["bias"])

dual_params = {}
with fwAD.dual_level():
    for name, p in params.items():
        # Using the same ``tangents`` from the above section
        dual_params[name] = fwAD.make_dual(p, tangents[name])
    out = functional_call(model, dual_params, input)
    jvp2 = fwAD.unpack_dual(out).tangent

# Check our results
assert torch.allclose(jvp, jvp2)
print(torch.allclose(jvp, jvp2))


class Fn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, foo):
        result = torch.exp(foo)
        # Tensors stored in ``ctx`` can be used in the subsequent forward grad
        # computation.
        ctx.result = result
        return result

    @staticmethod
    def jvp(ctx, gI):
        gO = gI * ctx.result
        # If the tensor stored in`` ctx`` will not also be used in the backward pass,
        # one can manually free it using ``del``
        del ctx.result
        return gO


fn = Fn.apply

primal = randn(10, 10, dtype=torch.double).requires_grad_()
tangent = randn(10, 10)

with fwAD.dual_level():
    dual_input = fwAD.make_dual(primal, tangent)
    dual_output = fn(dual_input)
    jvp = fwAD.unpack_dual(dual_output).tangent

# It is important to use ``autograd.gradcheck`` to verify that your
# custom autograd Function computes the gradients correctly. By default,
# ``gradcheck`` only checks the backward-mode (reverse-mode) AD gradients. Specify
# ``check_forward_ad=True`` to also check forward grads. If you did not
# implement the backward formula for your function, you can also tell ``gradcheck``
# to skip the tests that require backward-mode AD by specifying
# ``check_backward_ad=False``, ``check_undefined_grad=False``, and
# ``check_batched_grad=False``.
print(torch.autograd.gradcheck(Fn.apply, (primal,), check_forward_ad=True,
                               check_backward_ad=False, check_undefined_grad=False,
                               check_batched_grad=False))

import functorch as ft  # noqa: E402, F401 - the tutorial imports it; torch.func is the same API now

primal0 = randn(10, 10)
tangent0 = randn(10, 10)
primal1 = randn(10, 10)
tangent1 = randn(10, 10)


def fn(x, y):  # noqa: F811 - as in the tutorial
    return x ** 2 + y ** 2


# Here is a basic example to compute the JVP of the above function.
# The ``jvp(func, primals, tangents)`` returns ``func(*primals)`` as well as the
# computed Jacobian-vector product (JVP). Each primal must be associated with a tangent of the same shape.
primal_out, tangent_out = torch.func.jvp(fn, (primal0, primal1), (tangent0, tangent1))
print(torch.allclose(tangent_out, 2 * primal0 * tangent0 + 2 * primal1 * tangent1))
