# Corpus program: a physics-informed neural network for the damped harmonic oscillator: the exact solution
#   computed with NumPy scalars multiplying tensors (np.float64 * Tensor, np.arctan of a ratio), nested
#   nn.Sequential built from unpacked lists, torch.autograd.grad with create_graph=True taken twice for
#   du/dx and d2u/dx2 at collocation points (requires_grad_(True) on a view), and the data + physics loss.
# Source: benmoseley/harmonic-oscillator-pinn, Harmonic oscillator PINN.ipynb (FCN, oscillator, the PINN
#   training cell), as published.
# Licence: MIT (harmonic-oscillator-pinn; not verified: its licence file was not available to read here).
# Changes: 300 Adam steps instead of 20000 (lr 1e-3 instead of 1e-4 so that the loss moves), no plotting; the
#   losses printed every 100 steps.
# Randomness: torch.manual_seed(123) as the notebook does (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 atol=1e-6 -- float32 second derivatives over 300 Adam steps.
import numpy as np
import torch
import torch.nn as nn


def oscillator(d, w0, x):
    """Defines the analytical solution to the 1D underdamped harmonic oscillator problem.
    Equations taken from: https://beltoforion.de/en/harmonic_oscillator/"""
    assert d < w0
    w = np.sqrt(w0**2-d**2)
    phi = np.arctan(-d/w)
    A = 1/(2*np.cos(phi))
    cos = torch.cos(phi+w*x)
    sin = torch.sin(phi+w*x)
    exp = torch.exp(-d*x)
    y  = exp*2*A*cos
    return y


class FCN(nn.Module):
    "Defines a connected network"

    def __init__(self, N_INPUT, N_OUTPUT, N_HIDDEN, N_LAYERS):
        super().__init__()
        activation = nn.Tanh
        self.fcs = nn.Sequential(*[
                        nn.Linear(N_INPUT, N_HIDDEN),
                        activation()])
        self.fch = nn.Sequential(*[
                        nn.Sequential(*[
                            nn.Linear(N_HIDDEN, N_HIDDEN),
                            activation()]) for _ in range(N_LAYERS-1)])
        self.fce = nn.Linear(N_HIDDEN, N_OUTPUT)

    def forward(self, x):
        x = self.fcs(x)
        x = self.fch(x)
        x = self.fce(x)
        return x


d, w0 = 2, 20

# get the analytical solution over the full domain
x = torch.linspace(0,1,500).view(-1,1)
y = oscillator(d, w0, x).view(-1,1)
print(x.shape, y.shape, y[::100].view(-1))

# slice out a small number of points from the LHS of the domain
x_data = x[0:200:20]
y_data = y[0:200:20]
print(x_data.shape, y_data.shape)

x_physics = torch.linspace(0,1,30).view(-1,1).requires_grad_(True)# sample locations over the problem domain
mu, k = 2*d, w0**2

torch.manual_seed(123)
model = FCN(1,1,32,3)
print(model)
optimizer = torch.optim.Adam(model.parameters(),lr=1e-3)
for i in range(300):
    optimizer.zero_grad()

    # compute the "data loss"
    yh = model(x_data)
    loss1 = torch.mean((yh-y_data)**2)# use mean squared error

    # compute the "physics loss"
    yhp = model(x_physics)
    dx  = torch.autograd.grad(yhp, x_physics, torch.ones_like(yhp), create_graph=True)[0]# computes dy/dx
    dx2 = torch.autograd.grad(dx,  x_physics, torch.ones_like(dx),  create_graph=True)[0]# computes d^2y/dx^2
    physics = dx2 + mu*dx + k*yhp# computes the residual of the 1D harmonic oscillator differential equation
    loss2 = (1e-4)*torch.mean(physics**2)

    # backpropagate joint loss
    loss = loss1 + loss2# add two loss terms together
    loss.backward()
    optimizer.step()

    if (i+1) % 100 == 0:
        print(i + 1, round(loss1.item(), 6), round(loss2.item(), 6))

with torch.no_grad():
    print(model(x[::125]).view(-1))
