# Corpus program: fastbook's "Under the Hood: Training a Digit Classifier" with plain PyTorch:
#   pixel similarity, broadcasting distances, the quadratic SGD example, mnist_loss, and the linear model
#   trained by a hand-written optimizer (BasicOptim) and then by nn.Linear.
# Source: fastai/fastbook, 04_mnist_basics.ipynb (mnist_distance, is_3, f(t, params), apply_step,
#   init_params, linear1, mnist_loss, calc_grad, train_epoch, batch_accuracy, validate_epoch, BasicOptim).
# Licence: GPL-3.0 (fastbook's code); re-written here following the chapter's cells.
# Changes: fastai's DataLoader and the MNIST sample are replaced by 64 made-up 8x8 "threes" and "sevens"
#   (NumPy) in a torch DataLoader; 3 epochs.
# Randomness: data from NumPy; init_params from torch.randn under torch.manual_seed.
# corpus-tolerance: rtol=1e-4 -- float32 training.
import numpy as np
import torch
import torch.nn.functional as F
from torch import tensor

rng = np.random.default_rng(0)
torch.manual_seed(42)
three = np.zeros((8, 8), dtype=np.float32); three[1, 2:6] = three[3, 3:6] = three[6, 2:6] = 1; three[1:7, 5] = 1
seven = np.zeros((8, 8), dtype=np.float32); seven[1, 1:7] = 1; seven[2:7, 6 - np.arange(5) // 2] = 1
threes = torch.stack([tensor(three + rng.normal(0, 0.3, (8, 8)).astype(np.float32)) for _ in range(32)])
sevens = torch.stack([tensor(seven + rng.normal(0, 0.3, (8, 8)).astype(np.float32)) for _ in range(32)])
stacked_threes, stacked_sevens = threes.float().clamp(0, 1), sevens.float().clamp(0, 1)
mean3 = stacked_threes.mean(0)
mean7 = stacked_sevens.mean(0)
a_3 = stacked_threes[1]
dist_3_abs = (a_3 - mean3).abs().mean()
dist_3_sqr = ((a_3 - mean3)**2).mean().sqrt()
print(dist_3_abs, dist_3_sqr)
print(F.l1_loss(a_3.float(),mean7), F.mse_loss(a_3,mean7).sqrt())


def mnist_distance(a,b): return (a-b).abs().mean((-1,-2))
def is_3(x): return mnist_distance(x,mean3) < mnist_distance(x,mean7)


print(mnist_distance(stacked_threes[:4], mean3), is_3(stacked_threes).float().mean(), is_3(stacked_sevens).float().mean())


def f(x): return x**2


xt = tensor(3.).requires_grad_()
yt = f(xt)
yt.backward()
print(xt.grad)
xt = tensor([3.,4.,10.]).requires_grad_()


def f(x): return (x**2).sum()


yt = f(xt)
yt.backward()
print(xt.grad)

time = torch.arange(0,20).float()
speed = torch.randn(20)*3 + 0.75*(time-9.5)**2 + 1


def f(t, params):
    a,b,c = params
    return a*(t**2) + (b*t) + c


def mse(preds, targets): return ((preds-targets)**2).mean()


params = torch.randn(3).requires_grad_()
lr = 1e-5


def apply_step(params, prn=True):
    preds = f(time, params)
    loss = mse(preds, speed)
    loss.backward()
    params.data -= lr * params.grad.data
    params.grad = None
    if prn: print(loss.item())
    return preds


for i in range(4): apply_step(params)

train_x = torch.cat([stacked_threes, stacked_sevens]).view(-1, 8*8)
train_y = tensor([1]*len(threes) + [0]*len(sevens)).unsqueeze(1)
print(train_x.shape,train_y.shape)
dset = list(zip(train_x,train_y))
x,y = dset[0]
print(x.shape,y)


def init_params(size, std=1.0): return (torch.randn(size)*std).requires_grad_()


weights = init_params((8*8,1))
bias = init_params(1)


def linear1(xb): return xb@weights + bias


preds = linear1(train_x)
corrects = (preds>0.0).float() == train_y
print(corrects.float().mean().item())


def mnist_loss(predictions, targets):
    predictions = predictions.sigmoid()
    return torch.where(targets==1, 1-predictions, predictions).mean()


trgts  = tensor([1,0,1])
prds   = tensor([0.9, 0.4, 0.2])
print(mnist_loss(prds,trgts), mnist_loss(tensor([0.9, 0.4, 0.8]),trgts))

dl = torch.utils.data.DataLoader(dset, batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(0))
valid_dl = torch.utils.data.DataLoader(dset, batch_size=16)


def calc_grad(xb, yb, model):
    preds = model(xb)
    loss = mnist_loss(preds, yb)
    loss.backward()


def train_epoch(model, lr, params):
    for xb,yb in dl:
        calc_grad(xb, yb, model)
        for p in params:
            p.data -= p.grad*lr
            p.grad.zero_()


def batch_accuracy(xb, yb):
    preds = xb.sigmoid()
    correct = (preds>0.5) == yb
    return correct.float().mean()


def validate_epoch(model):
    accs = [batch_accuracy(model(xb), yb) for xb,yb in valid_dl]
    return round(torch.stack(accs).mean().item(), 4)


lr = 1.
params = weights,bias
for i in range(3):
    train_epoch(linear1, lr, params)
    print(validate_epoch(linear1), end=' ')
print()


class BasicOptim:
    def __init__(self,params,lr): self.params,self.lr = list(params),lr

    def step(self, *args, **kwargs):
        for p in self.params: p.data -= p.grad.data * self.lr

    def zero_grad(self, *args, **kwargs):
        for p in self.params: p.grad = None


linear_model = torch.nn.Linear(8*8,1)
w,b = linear_model.parameters()
print(w.shape,b.shape)
opt = BasicOptim(linear_model.parameters(), lr)


def train_epoch(model):
    for xb,yb in dl:
        calc_grad(xb, yb, model)
        opt.step()
        opt.zero_grad()


def train_model(model, epochs):
    for i in range(epochs):
        train_epoch(model)
        print(validate_epoch(model), end=' ')
    print()


train_model(linear_model, 3)
simple_net = torch.nn.Sequential(
    torch.nn.Linear(8*8,30),
    torch.nn.ReLU(),
    torch.nn.Linear(30,1)
)
opt = torch.optim.SGD(simple_net.parameters(), lr=0.1)
train_model(simple_net, 3)
