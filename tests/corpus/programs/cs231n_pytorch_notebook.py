# Corpus program: CS231n's PyTorch notebook, barebones part: flatten, two_layer_fc and three_layer_convnet as
#   functions of weight lists, random_weight with Kaiming normalisation, and the three APIs (barebones, nn.Module,
#   nn.Sequential) trained a few steps.
# Source: cs231n/cs231n.github.io, assignments/2023/assignment2 (PyTorch.ipynb: flatten, two_layer_fc,
#   three_layer_convnet, random_weight, zero_weight, check_accuracy_part2, train_part2, ThreeLayerConvNet, Flatten in
#   nn.Sequential).
# Licence: MIT (cs231n.github.io); re-written here following the notebook's cells.
# Changes: CIFAR-10 is replaced by 32 random 3x8x8 images; channel counts 6 and 4; 3 steps each.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 training.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
USE_GPU = True
dtype = torch.float32 # We will be using float throughout this tutorial.
if USE_GPU and torch.cuda.is_available():
    device = torch.device('cuda')
else:
    device = torch.device('cpu')
print('using device:', device)
loader_train = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(torch.randn(32, 3, 8, 8), torch.randint(0, 10, (32,))), batch_size=16)


def flatten(x):
    N = x.shape[0] # read in N, C, H, W
    return x.view(N, -1)  # "flatten" the C * H * W values into a single vector per image


def test_flatten():
    x = torch.arange(12).view(2, 1, 3, 2)
    print('Before flattening: ', x)
    print('After flattening: ', flatten(x))


test_flatten()


def two_layer_fc(x, params):
    x = flatten(x)  # shape: [batch_size, C x H x W]
    w1, w2 = params
    x = F.relu(x.mm(w1))
    x = x.mm(w2)
    return x


def two_layer_fc_test():
    hidden_layer_size = 42
    x = torch.zeros((64, 50), dtype=dtype)  # minibatch size 64, feature dimension 50
    w1 = torch.zeros((50, hidden_layer_size), dtype=dtype)
    w2 = torch.zeros((hidden_layer_size, 10), dtype=dtype)
    scores = two_layer_fc(x, [w1, w2])
    print(scores.size())  # you should see [64, 10]


two_layer_fc_test()


def three_layer_convnet(x, params):
    conv_w1, conv_b1, conv_w2, conv_b2, fc_w, fc_b = params
    scores = None
    x = F.relu(F.conv2d(x, conv_w1, bias=conv_b1, padding=2))
    x = F.relu(F.conv2d(x, conv_w2, bias=conv_b2, padding=1))
    scores = flatten(x).mm(fc_w) + fc_b
    return scores


def random_weight(shape):
    if len(shape) == 2:  # FC weight
        fan_in = shape[0]
    else:
        fan_in = torch.prod(torch.tensor(shape[1:])) # conv weight [out_channel, in_channel, kH, kW]
    # randn is standard normal distribution generator.
    w = torch.randn(shape, device=device, dtype=dtype) * torch.sqrt(torch.tensor(2. / fan_in))
    w.requires_grad = True
    return w


def zero_weight(shape):
    return torch.zeros(shape, device=device, dtype=dtype, requires_grad=True)


print(random_weight((3, 5)))


def check_accuracy_part2(loader, model_fn, params):
    split = 'val' if loader.dataset.tensors[0].shape[0] else 'test'
    print('Checking accuracy on the %s set' % split)
    num_correct, num_samples = 0, 0
    with torch.no_grad():
        for x, y in loader:
            x = x.to(device=device, dtype=dtype)  # move to device, e.g. GPU
            y = y.to(device=device, dtype=torch.int64)
            scores = model_fn(x, params)
            _, preds = scores.max(1)
            num_correct += (preds == y).sum()
            num_samples += preds.size(0)
        acc = float(num_correct) / num_samples
        print('Got %d / %d correct (%.2f%%)' % (num_correct, num_samples, 100 * acc))


def train_part2(model_fn, params, learning_rate):
    for t, (x, y) in enumerate(loader_train):
        x = x.to(device=device, dtype=dtype)  # move to device, e.g. GPU
        y = y.to(device=device, dtype=torch.long)
        scores = model_fn(x, params)
        loss = F.cross_entropy(scores, y)
        loss.backward()
        with torch.no_grad():
            for w in params:
                w -= learning_rate * w.grad
                w.grad.zero_()
        print('Iteration %d, loss = %.4f' % (t, loss.item()))
    check_accuracy_part2(loader_train, model_fn, params)


channel_1, channel_2 = 6, 4
params = [random_weight((channel_1, 3, 5, 5)), zero_weight((channel_1,)),
          random_weight((channel_2, channel_1, 3, 3)), zero_weight((channel_2,)),
          random_weight((channel_2 * 8 * 8, 10)), zero_weight((10,))]
train_part2(three_layer_convnet, params, 3e-3)
train_part2(two_layer_fc, [random_weight((3 * 8 * 8, 40)), random_weight((40, 10))], 1e-2)


class ThreeLayerConvNet(nn.Module):
    def __init__(self, in_channel, channel_1, channel_2, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(in_channel, channel_1, 5, padding=2)
        nn.init.kaiming_normal_(self.conv1.weight)
        self.conv2 = nn.Conv2d(channel_1, channel_2, 3, padding=1)
        nn.init.kaiming_normal_(self.conv2.weight)
        self.fc = nn.Linear(channel_2 * 8 * 8, num_classes)
        nn.init.kaiming_normal_(self.fc.weight)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        return self.fc(flatten(x))


def train_part34(model, optimizer, epochs=1):
    model = model.to(device=device)  # move the model parameters to CPU/GPU
    for e in range(epochs):
        for t, (x, y) in enumerate(loader_train):
            model.train()  # put model to training mode
            x = x.to(device=device, dtype=dtype)  # move to device, e.g. GPU
            y = y.to(device=device, dtype=torch.long)
            scores = model(x)
            loss = F.cross_entropy(scores, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print('Iteration %d, loss = %.4f' % (t, loss.item()))


model = ThreeLayerConvNet(3, channel_1, channel_2, 10)
train_part34(model, optim.SGD(model.parameters(), lr=3e-3), epochs=1)


class Flatten(nn.Module):
    def forward(self, x):
        return flatten(x)


model = nn.Sequential(
    nn.Conv2d(3, channel_1, 5, padding=2),
    nn.ReLU(),
    nn.Conv2d(channel_1, channel_2, 3, padding=1),
    nn.ReLU(),
    Flatten(),
    nn.Linear(channel_2 * 8 * 8, 10),
)
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9, nesterov=True)
train_part34(model, optimizer, epochs=1)
