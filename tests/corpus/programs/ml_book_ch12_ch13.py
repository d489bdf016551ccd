# Corpus program: "Machine Learning with PyTorch and Scikit-Learn", chapters 12 and 13: tensor creation and
#   manipulation (chunk, split, stack, cat, where), a joint dataset and DataLoader with shuffle and drop_last, the Iris-
#   style MLP, a custom NoisyLinear layer used only in training, the XOR model as nn.Module, and torch.autograd.grad for
#   a gradient.
# Source: rasbt/machine-learning-book, ch12/ch12_part1.ipynb and ch13/ch13_part1.ipynb, ch13_part2.ipynb
#   (JointDataset, Model, NoisyLinear, MyNoiseModule, compute_z/autograd.grad).
# Licence: MIT (machine-learning-book); re-written here following the notebooks.
# Changes: the Iris and XOR data are made on the spot (NumPy); 20 epochs; plotting dropped.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers); data from NumPy.
# corpus-tolerance: rtol=1e-4 -- float32 training.
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, TensorDataset

torch.manual_seed(1)
np.set_printoptions(precision=3)
a = [1, 2, 3]
b = np.array([4, 5, 6], dtype=np.int32)
t_a = torch.tensor(a)
t_b = torch.from_numpy(b)
print(t_a)
print(t_b)
t_ones = torch.ones(2, 3)
print(t_ones.shape, torch.rand(2, 3))
t_a_new = t_a.to(torch.int64)
print(t_a_new.dtype)
t = torch.rand(3, 5)
t_tr = torch.transpose(t, 0, 1)
print(t.shape, ' --> ', t_tr.shape)
t = torch.zeros(30)
t_reshape = t.reshape(5, 6)
print(t_reshape.shape)
t = torch.zeros(1, 2, 1, 4, 1)
t_sqz = torch.squeeze(t, 2)
print(t.shape, ' --> ', t_sqz.shape)
t1 = 2 * torch.rand(5, 2) - 1
t2 = torch.normal(mean=0, std=1, size=(5, 2))
t3 = torch.multiply(t1, t2)
print(t3)
t4 = torch.mean(t1, axis=0)
print(t4)
t5 = torch.matmul(t1, torch.transpose(t2, 0, 1))
print(t5)
norm_t1 = torch.linalg.norm(t1, ord=2, dim=1)
print(norm_t1)
print(np.sqrt(np.sum(np.square(t1.numpy()), axis=1)))
t = torch.rand(6)
print(t)
t_splits = torch.chunk(t, 3)
print([item.numpy() for item in t_splits])
t = torch.rand(5)
t_splits = torch.split(t, split_size_or_sections=[3, 2])
print([item.numpy() for item in t_splits])
A = torch.ones(3)
B = torch.zeros(2)
C = torch.cat([A, B], axis=0)
print(C)
A = torch.ones(3)
B = torch.zeros(3)
S = torch.stack([A, B], axis=1)
print(S)

t_x = torch.rand([4, 3], dtype=torch.float32)
t_y = torch.arange(4)


class JointDataset(Dataset):
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.y[idx]


joint_dataset = JointDataset(t_x, t_y)
joint_dataset = TensorDataset(t_x, t_y)
for example in joint_dataset:
    print('  x: ', example[0], '  y: ', example[1])
torch.manual_seed(1)
data_loader = DataLoader(dataset=joint_dataset, batch_size=2, shuffle=True, drop_last=True)
for epoch in range(2):
    print(f'epoch {epoch+1}')
    for i, batch in enumerate(data_loader, 1):
        print(f'batch {i}:', 'x:', batch[0], '\n         y:', batch[1])

# ch13: Iris-style classifier
rng = np.random.RandomState(1)
X = np.vstack([rng.normal(loc, 0.5, (30, 4)) for loc in (0.0, 1.5, 3.0)]).astype(np.float32)
y = np.repeat(np.arange(3), 30)
X_train_norm = (X - np.mean(X)) / np.std(X)
X_train_norm = torch.from_numpy(X_train_norm).float()
y_train = torch.from_numpy(y)
train_ds = TensorDataset(X_train_norm, y_train)
torch.manual_seed(1)
batch_size = 2 * 15
train_dl = DataLoader(train_ds, batch_size, shuffle=True)


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.layer1 = nn.Linear(input_size, hidden_size)
        self.layer2 = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        x = self.layer1(x)
        x = nn.Sigmoid()(x)
        x = self.layer2(x)
        x = nn.Softmax(dim=1)(x)
        return x


input_size = X_train_norm.shape[1]
hidden_size = 16
output_size = 3
model = Model(input_size, hidden_size, output_size)
learning_rate = 0.001
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)
num_epochs = 20
loss_hist = [0] * num_epochs
accuracy_hist = [0] * num_epochs
for epoch in range(num_epochs):
    for x_batch, y_batch in train_dl:
        pred = model(x_batch)
        loss = loss_fn(pred, y_batch.long())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        loss_hist[epoch] += loss.item()*y_batch.size(0)
        is_correct = (torch.argmax(pred, dim=1) == y_batch).float()
        accuracy_hist[epoch] += is_correct.sum()
    loss_hist[epoch] /= len(train_dl.dataset)
    accuracy_hist[epoch] /= len(train_dl.dataset)
print([round(v, 4) for v in loss_hist[::5]], accuracy_hist[-1])

# ch13 part 2: autograd.grad
w = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(0.5, requires_grad=True)
x = torch.tensor([1.4])
y = torch.tensor([2.1])
z = torch.add(torch.mul(w, x), b)
loss = (y-z).pow(2).sum()
loss.backward()
print('dL/dw : ', w.grad)
print('dL/db : ', b.grad)
# verifying the computed gradient
print(2 * x * ((w * x + b) - y))


class NoisyLinear(nn.Module):
    def __init__(self, input_size, output_size, noise_stddev=0.1):
        super().__init__()
        w = torch.Tensor(input_size, output_size)
        self.w = nn.Parameter(w)  # nn.Parameter is a Tensor that's a module parameter.
        nn.init.xavier_uniform_(self.w)
        b = torch.Tensor(output_size).fill_(0)
        self.b = nn.Parameter(b)
        self.noise_stddev = noise_stddev

    def forward(self, x, training=False):
        if training:
            noise = torch.normal(0.0, self.noise_stddev, x.shape)
            x_new = torch.add(x, noise)
        else:
            x_new = x
        return torch.add(torch.mm(x_new, self.w), self.b)


class MyNoisyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = NoisyLinear(2, 4, 0.07)
        self.a1 = nn.ReLU()
        self.l2 = nn.Linear(4, 4)
        self.a2 = nn.ReLU()
        self.l3 = nn.Linear(4, 1)
        self.a3 = nn.Sigmoid()

    def forward(self, x, training=False):
        x = self.l1(x, training)
        x = self.a1(x)
        x = self.l2(x)
        x = self.a2(x)
        x = self.l3(x)
        x = self.a3(x)
        return x

    def predict(self, x):
        x = torch.tensor(x, dtype=torch.float32)
        pred = self.forward(x)[:, 0]
        return (pred>=0.5).float()


torch.manual_seed(1)
noisy_layer = NoisyLinear(4, 2)
x = torch.zeros((1, 4))
print(noisy_layer(x, training=True))
print(noisy_layer(x, training=True))
print(noisy_layer(x, training=False))
x = np.random.RandomState(1).uniform(low=-1, high=1, size=(40, 2))
y = np.ones(len(x))
y[x[:, 0] * x[:, 1]<0] = 0
x_train = torch.tensor(x, dtype=torch.float32)
y_train = torch.tensor(y, dtype=torch.float32)
model = MyNoisyModule()
loss_fn = nn.BCELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.015)
train_dl = DataLoader(TensorDataset(x_train, y_train), 2, shuffle=True)
for epoch in range(3):
    for x_batch, y_batch in train_dl:
        pred = model(x_batch, True)[:, 0]
        loss = loss_fn(pred, y_batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    print(epoch, round(loss.item(), 4))
print(model.predict(x[:6]))
