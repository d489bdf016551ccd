# Corpus program: Morvan's regression and classification tutorials: a Net with hidden and predict layers, unsqueeze'd
#   linspace data, the quick Sequential build, and save/reload of the whole net and of its parameters.
# Source: MorvanZhou/PyTorch-Tutorial, tutorial-contents/301_regression.py, 302_classification.py,
#   303_build_nn_quickly.py, 304_save_reload.py.
# Licence: MIT (PyTorch-Tutorial); re-written here following the files.
# Changes: matplotlib plotting is dropped; 20 steps; files go to a temporary folder.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 training.
import os
import tempfile

import torch
import torch.nn.functional as F

torch.manual_seed(1)    # reproducible
folder = tempfile.mkdtemp()

x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)  # x data (tensor), shape=(100, 1)
y = x.pow(2) + 0.2*torch.rand(x.size())                 # noisy y data (tensor), shape=(100, 1)


class Net(torch.nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(n_feature, n_hidden)   # hidden layer
        self.predict = torch.nn.Linear(n_hidden, n_output)   # output layer

    def forward(self, x):
        x = F.relu(self.hidden(x))      # activation function for hidden layer
        x = self.predict(x)             # linear output
        return x


net = Net(n_feature=1, n_hidden=10, n_output=1)     # define the network
print(net)  # net architecture
optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
loss_func = torch.nn.MSELoss()  # this is for regression mean squared loss
for t in range(20):
    prediction = net(x)     # input x and predict based on x
    loss = loss_func(prediction, y)     # must be (1. nn output, 2. target)
    optimizer.zero_grad()   # clear gradients for next train
    loss.backward()         # backpropagation, compute gradients
    optimizer.step()        # apply gradients
    if t % 5 == 0:
        print('Loss=%.4f' % loss.data.numpy())

# 302: classification
n_data = torch.ones(100, 2)
x0 = torch.normal(2*n_data, 1)      # class0 x data (tensor), shape=(100, 2)
y0 = torch.zeros(100)               # class0 y data (tensor), shape=(100, 1)
x1 = torch.normal(-2*n_data, 1)     # class1 x data (tensor), shape=(100, 2)
y1 = torch.ones(100)                # class1 y data (tensor), shape=(100, 1)
x = torch.cat((x0, x1), 0).type(torch.FloatTensor)  # shape (200, 2) FloatTensor = 32-bit floating
y = torch.cat((y0, y1), ).type(torch.LongTensor)    # shape (200,) LongTensor = 64-bit integer

# 303: the quick way
net2 = torch.nn.Sequential(
    torch.nn.Linear(2, 10),
    torch.nn.ReLU(),
    torch.nn.Linear(10, 2)
)
print(net2)
optimizer = torch.optim.SGD(net2.parameters(), lr=0.02)
loss_func = torch.nn.CrossEntropyLoss()  # the target label is NOT an one-hotted
for t in range(20):
    out = net2(x)                 # input x and predict based on x
    loss = loss_func(out, y)     # must be (1. nn output, 2. target), the target label is NOT one-hotted
    optimizer.zero_grad()   # clear gradients for next train
    loss.backward()         # backpropagation, compute gradients
    optimizer.step()        # apply gradients
    if t % 5 == 0:
        prediction = torch.max(out, 1)[1]
        pred_y = prediction.data.numpy()
        target_y = y.data.numpy()
        accuracy = float((pred_y == target_y).astype(int).sum()) / float(target_y.size)
        print('Accuracy=%.2f' % accuracy, 'Loss=%.4f' % loss.item())

# 304: save and reload
torch.save(net2, os.path.join(folder, 'net.pkl'))  # save entire net
torch.save(net2.state_dict(), os.path.join(folder, 'net_params.pkl'))   # save only the parameters
net3 = torch.load(os.path.join(folder, 'net.pkl'), weights_only=False)
prediction = net3(x)
net4 = torch.nn.Sequential(
    torch.nn.Linear(2, 10),
    torch.nn.ReLU(),
    torch.nn.Linear(10, 2)
)
net4.load_state_dict(torch.load(os.path.join(folder, 'net_params.pkl')))
print(torch.equal(prediction, net4(x)), prediction[:3])
