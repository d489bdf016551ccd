# Corpus program: Morvan's batch training, optimizers compared, dropout and batch normalization tutorials.
# Source: MorvanZhou/PyTorch-Tutorial, tutorial-contents/305_batch_train.py, 306_optimizer.py, 503_dropout.py,
#   504_batch_normalization.py.
# Licence: MIT (PyTorch-Tutorial); re-written here following the files.
# Changes: plotting is dropped; 1 epoch of small batches; the batch-normalization net has 3 hidden layers of 10 units.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 training.
import torch
import torch.nn.functional as F
import torch.utils.data as Data
from torch import nn
from torch.nn import init

torch.manual_seed(1)    # reproducible

BATCH_SIZE = 5
x = torch.linspace(1, 10, 10)       # this is x data (torch tensor)
y = torch.linspace(10, 1, 10)       # this is y data (torch tensor)
torch_dataset = Data.TensorDataset(x, y)
loader = Data.DataLoader(
    dataset=torch_dataset,      # torch TensorDataset format
    batch_size=BATCH_SIZE,      # mini batch size
    shuffle=True,               # random shuffle for training
    num_workers=0,              # subprocesses for loading data
)
for epoch in range(3):   # train entire dataset 3 times
    for step, (batch_x, batch_y) in enumerate(loader):  # for each training step
        print('Epoch: ', epoch, '| Step: ', step, '| batch x: ',
              batch_x.numpy(), '| batch y: ', batch_y.numpy())

# 306: optimizers
LR = 0.01
x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)
y = x.pow(2) + 0.1*torch.normal(torch.zeros(*x.size()))
loader = Data.DataLoader(dataset=Data.TensorDataset(x, y), batch_size=32, shuffle=True, num_workers=0,)


class Net(torch.nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(1, 20)   # hidden layer
        self.predict = torch.nn.Linear(20, 1)   # output layer

    def forward(self, x):
        x = F.relu(self.hidden(x))      # activation function for hidden layer
        x = self.predict(x)             # linear output
        return x


net_SGD         = Net()
net_Momentum    = Net()
net_RMSprop     = Net()
net_Adam        = Net()
nets = [net_SGD, net_Momentum, net_RMSprop, net_Adam]
opt_SGD         = torch.optim.SGD(net_SGD.parameters(), lr=LR)
opt_Momentum    = torch.optim.SGD(net_Momentum.parameters(), lr=LR, momentum=0.8)
opt_RMSprop     = torch.optim.RMSprop(net_RMSprop.parameters(), lr=LR, alpha=0.9)
opt_Adam        = torch.optim.Adam(net_Adam.parameters(), lr=LR, betas=(0.9, 0.99))
optimizers = [opt_SGD, opt_Momentum, opt_RMSprop, opt_Adam]
loss_func = torch.nn.MSELoss()
losses_his = [[], [], [], []]   # record loss
for epoch in range(2):
    for step, (b_x, b_y) in enumerate(loader):          # for each training step
        for net, opt, l_his in zip(nets, optimizers, losses_his):
            output = net(b_x)              # get output for every net
            loss = loss_func(output, b_y)  # compute loss for every net
            opt.zero_grad()                # clear gradients for next train
            loss.backward()                # backpropagation, compute gradients
            opt.step()                     # apply gradients
            l_his.append(loss.data.numpy())     # loss recoder
print([['%.4f' % v for v in his[-2:]] for his in losses_his])

# 503: dropout
N_HIDDEN = 30
x = torch.unsqueeze(torch.linspace(-1, 1, 20), 1)
y = x + 0.3*torch.normal(torch.zeros(20, 1), torch.ones(20, 1))
net_overfitting = torch.nn.Sequential(
    torch.nn.Linear(1, N_HIDDEN), torch.nn.ReLU(), torch.nn.Linear(N_HIDDEN, N_HIDDEN), torch.nn.ReLU(),
    torch.nn.Linear(N_HIDDEN, 1),
)
net_dropped = torch.nn.Sequential(
    torch.nn.Linear(1, N_HIDDEN), torch.nn.Dropout(0.5),  # drop 50% of the neuron
    torch.nn.ReLU(), torch.nn.Linear(N_HIDDEN, N_HIDDEN), torch.nn.Dropout(0.5),  # drop 50% of the neuron
    torch.nn.ReLU(), torch.nn.Linear(N_HIDDEN, 1),
)
optimizer_ofit = torch.optim.Adam(net_overfitting.parameters(), lr=0.01)
optimizer_drop = torch.optim.Adam(net_dropped.parameters(), lr=0.01)
loss_func = torch.nn.MSELoss()
for t in range(10):
    pred_ofit = net_overfitting(x)
    pred_drop = net_dropped(x)
    loss_ofit = loss_func(pred_ofit, y)
    loss_drop = loss_func(pred_drop, y)
    optimizer_ofit.zero_grad()
    optimizer_drop.zero_grad()
    loss_ofit.backward()
    loss_drop.backward()
    optimizer_ofit.step()
    optimizer_drop.step()
net_overfitting.eval()
net_dropped.eval()  # parameters for dropout differ from train mode
print('%.4f %.4f' % (loss_func(net_overfitting(x), y).item(), loss_func(net_dropped(x), y).item()))
net_dropped.train()


# 504: batch normalization
N_HIDDEN_LAYERS = 3
ACTIVATION = torch.tanh
B_INIT = -0.2   # use a bad bias constant initializer


class BNNet(nn.Module):
    def __init__(self, batch_normalization=False):
        super(BNNet, self).__init__()
        self.do_bn = batch_normalization
        self.fcs = []
        self.bns = []
        self.bn_input = nn.BatchNorm1d(1, momentum=0.5)   # for input data

        for i in range(N_HIDDEN_LAYERS):               # build hidden layers and BN layers
            input_size = 1 if i == 0 else 10
            fc = nn.Linear(input_size, 10)
            setattr(self, 'fc%i' % i, fc)       # IMPORTANT set layer to the Module
            self._set_init(fc)                  # parameters initialization
            self.fcs.append(fc)
            if self.do_bn:
                bn = nn.BatchNorm1d(10, momentum=0.5)
                setattr(self, 'bn%i' % i, bn)   # IMPORTANT set layer to the Module
                self.bns.append(bn)

        self.predict = nn.Linear(10, 1)         # output layer
        self._set_init(self.predict)            # parameters initialization

    def _set_init(self, layer):
        init.normal_(layer.weight, mean=0., std=.1)
        init.constant_(layer.bias, B_INIT)

    def forward(self, x):
        pre_activation = [x]
        if self.do_bn: x = self.bn_input(x)     # input batch normalization
        layer_input = [x]
        for i in range(N_HIDDEN_LAYERS):
            x = self.fcs[i](x)
            pre_activation.append(x)
            if self.do_bn: x = self.bns[i](x)   # batch normalization
            x = ACTIVATION(x)
            layer_input.append(x)
        out = self.predict(x)
        return out, layer_input, pre_activation


nets = [BNNet(batch_normalization=False), BNNet(batch_normalization=True)]
print(*nets)
opts = [torch.optim.Adam(net.parameters(), lr=0.03) for net in nets]
for step in range(3):
    for net, opt in zip(nets, opts):     # train for each network
        pred, _, _ = net(x)
        loss = loss_func(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()    # it will also learns the parameters in Batch Normalization
        print('%.4f' % loss.item(), end=' ')
print()
# (not bn0.running_mean: the bias before a BatchNorm gets a zero gradient up to rounding, which Adam turns into
#  full-size steps of either sign)
print(nets[1].bn0.running_var[:3], nets[1].bn_input.running_var)
