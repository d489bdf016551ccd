# Corpus program: "A Neural Net from the Foundations" of fastbook: matmul from scratch, einsum, and
#   the forward/backward layers that store gradients as attributes on tensors (x.g = ...).
# Source: fastai/fastbook, 17_foundations.ipynb (matmul, Elementwise Arithmetic, Broadcasting, Einstein
#   Summation, Defining and Initializing a Layer, Gradients and the Backward Pass, Refactoring the Model,
#   Going to PyTorch with autograd.Function).
# Licence: GPL-3.0 (fastbook's code); re-written here following the chapter's cells.
# Changes: small sizes (the chapter uses 200x100 inputs, 5x784 images); values printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 sums in a different order.
import torch
from torch import tensor

torch.manual_seed(0)


def matmul(a,b):
    ar,ac = a.shape # n_rows * n_cols
    br,bc = b.shape
    assert ac==br
    c = torch.zeros(ar, bc)
    for i in range(ar):
        for j in range(bc):
            for k in range(ac): c[i,j] += a[i,k] * b[k,j]
    return c


m1 = torch.randn(5,28*28)
m2 = torch.randn(784,10)
m1s, m2s = m1[:2, :6], m2[:6, :3]
print(matmul(m1s, m2s))

a = tensor([10., 6, -4])
b = tensor([2., 8, 7])
print(a + b, a < b, (a < b).all(), (a==b).all(), (a + b).mean().item())
m = tensor([[1., 2, 3], [4,5,6], [7,8,9]])
print(m*m)
c = tensor([10.,20,30])
print(m + c, c.expand_as(m), c.expand_as(m).storage(), c.expand_as(m).stride())
print(c.unsqueeze(0).shape, c.unsqueeze(1).shape, c[None,:].shape, c[:,None].shape, c[...,None].shape)


def matmul2(a,b):
    ar,ac = a.shape
    br,bc = b.shape
    assert ac==br
    c = torch.zeros(ar, bc)
    for i in range(ar):
#       c[i,j] = (a[i,:]          * b[:,j]).sum() # previous
        c[i]   = (a[i  ].unsqueeze(-1) * b).sum(dim=0)
    return c


print(torch.allclose(matmul2(m1, m2), m1 @ m2, atol=1e-4))


def matmul3(a,b): return torch.einsum('ik,kj->ij', a, b)


print(torch.allclose(matmul3(m1, m2), m1 @ m2, atol=1e-4))

x = torch.randn(20, 10)
w1 = torch.randn(10,50) / (10 ** 0.5)
b1 = torch.zeros(50)
w2 = torch.randn(50,1) / (50 ** 0.5)
b2 = torch.zeros(1)
y = torch.randn(20, 1)


def lin(x, w, b): return x @ w + b
def relu(x): return x.clamp_min(0.)
def mse(output, targ): return (output.squeeze(-1)-targ).pow(2).mean()


def mse_grad(inp, targ):
    # grad of loss with respect to output of previous layer
    inp.g = 2. * (inp.squeeze() - targ).unsqueeze(-1) / inp.shape[0]


def relu_grad(inp, out):
    # grad of relu with respect to input activations
    inp.g = (inp>0).float() * out.g


def lin_grad(inp, out, w, b):
    # grad of matmul with respect to input
    inp.g = out.g @ w.t()
    w.g = inp.t() @ out.g
    b.g = out.g.sum(0)


def forward_and_backward(inp, targ):
    # forward pass:
    l1 = inp @ w1 + b1
    l2 = relu(l1)
    out = l2 @ w2 + b2
    # we don't actually need the loss in backward!
    loss = mse(out, targ)

    # backward pass:
    mse_grad(out, targ)
    lin_grad(l2, out, w2, b2)
    relu_grad(l1, l2)
    lin_grad(inp, l1, w1, b1)
    return loss


print(forward_and_backward(x, y.squeeze()))
print(w2.g[:4].flatten(), b1.g[:4], x.g.shape)


class Relu:
    def __call__(self, inp):
        self.inp = inp
        self.out = inp.clamp_min(0.)
        return self.out

    def backward(self): self.inp.g = (self.inp>0).float() * self.out.g


class Lin:
    def __init__(self, w, b): self.w,self.b = w,b

    def __call__(self, inp):
        self.inp = inp
        self.out = self.inp@self.w + self.b
        return self.out

    def backward(self):
        self.inp.g = self.out.g @ self.w.t()
        self.w.g = self.inp.t() @ self.out.g
        self.b.g = self.out.g.sum(0)


class Mse:
    def __call__(self, inp, targ):
        self.inp = inp
        self.targ = targ
        self.out = (inp.squeeze() - targ).pow(2).mean()
        return self.out

    def backward(self):
        x = (self.inp.squeeze()-self.targ).unsqueeze(-1)
        self.inp.g = 2.*x/self.targ.shape[0]


class Model:
    def __init__(self, w1, b1, w2, b2):
        self.layers = [Lin(w1,b1), Relu(), Lin(w2,b2)]
        self.loss = Mse()

    def __call__(self, x, targ):
        for l in self.layers: x = l(x)
        return self.loss(x, targ)

    def backward(self):
        self.loss.backward()
        for l in reversed(self.layers): l.backward()


model = Model(w1, b1, w2, b2)
loss = model(x, y.squeeze())
model.backward()
print(loss, w1.g.sum(), b2.g)


class LinFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp, w, b):
        ctx.save_for_backward(inp, w)
        return inp@w + b

    @staticmethod
    def backward(ctx, grad_output):
        inp, w = ctx.saved_tensors
        return grad_output @ w.t(), inp.t() @ grad_output, grad_output.sum(0)


class MyRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.clamp_min(0.)
        ctx.save_for_backward(i)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        i, = ctx.saved_tensors
        return grad_output * (i>0).float()


xt = x.clone().requires_grad_(True)
w1t, b1t, w2t, b2t = [t.clone().requires_grad_(True) for t in (w1, b1, w2, b2)]
out = LinFunction.apply(MyRelu.apply(LinFunction.apply(xt, w1t, b1t)), w2t, b2t)
mse(out, y.squeeze()).backward()
print(torch.allclose(w1t.grad, w1.g, atol=1e-5), torch.allclose(xt.grad, x.g, atol=1e-5))


class LinearLayer(torch.nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n_out, n_in) * (2/n_in)**0.5)
        self.bias = torch.nn.Parameter(torch.zeros(n_out))

    def forward(self, x): return x @ self.weight.t() + self.bias


lin = LinearLayer(10,2)  # noqa: F811 - the chapter redefines lin
p1,p2 = lin.parameters()
print(p1.shape,p2.shape)
