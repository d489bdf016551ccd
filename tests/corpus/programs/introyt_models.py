# Corpus program: "Building Models with PyTorch" of "Introduction to PyTorch - YouTube Series".
# Source: pytorch/tutorials, beginner_source/introyt/modelsyt_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: inputs come from NumPy; the layers' weights are set from NumPy after construction.
# Randomness: all values come from NumPy; dropout is shown in eval mode (no random mask) and its
#   training-mode output is checked for its zero pattern's shape only.
# corpus-tolerance: atol=1e-6 -- the mean of batch-normalised values is float32 rounding noise
#   around 0 (about 1e-7), printed in scientific notation.
import numpy as np
import torch

rng = np.random.default_rng(21)


def fill(module):
    with torch.no_grad():
        for p in module.parameters():
            fan_in = p[0].numel() if p.dim() > 1 else p.numel()
            p.copy_(torch.from_numpy((rng.uniform(-1, 1, tuple(p.shape)) / fan_in**0.5).astype(np.float32)))
    return module


def rand(*shape):
    return torch.from_numpy(rng.random(shape, dtype=np.float32))


class TinyModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear1 = torch.nn.Linear(100, 200)
        self.activation = torch.nn.ReLU()
        self.linear2 = torch.nn.Linear(200, 10)
        self.softmax = torch.nn.Softmax(dim=-1)

    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        x = self.softmax(x)
        return x


tinymodel = fill(TinyModel())
print("The model:")
print(tinymodel)
print("\n\nJust one layer:")
print(tinymodel.linear2)
print("\n\nModel params:")
for param in tinymodel.parameters():
    print(param.shape)
print("\n\nLayer params:")
for param in tinymodel.linear2.parameters():
    print(param.shape)

lin = fill(torch.nn.Linear(3, 2))
x = rand(1, 3)
print("Input:")
print(x)
print("\n\nWeight and Bias parameters:")
for param in lin.parameters():
    print(param)
y = lin(x)
print("\n\nOutput:")
print(y)

import torch.functional as F  # noqa: E402,F401 - as in the tutorial


class LeNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5)
        self.conv2 = torch.nn.Conv2d(6, 16, 3)
        self.fc1 = torch.nn.Linear(16 * 6 * 6, 120)
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.nn.functional.relu(self.conv1(x)), (2, 2))
        x = torch.nn.functional.max_pool2d(torch.nn.functional.relu(self.conv2(x)), 2)
        x = x.view(-1, self.num_flat_features(x))
        x = torch.nn.functional.relu(self.fc1(x))
        x = torch.nn.functional.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


net = fill(LeNet())
print(net(rand(1, 1, 32, 32)))


class LSTMTagger(torch.nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.word_embeddings = torch.nn.Embedding(vocab_size, embedding_dim)
        self.lstm = torch.nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = torch.nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = torch.nn.functional.log_softmax(tag_space, dim=1)
        return tag_scores


tagger = fill(LSTMTagger(6, 5, 9, 3))
print(tagger(torch.tensor([0, 4, 2, 8])))

my_tensor = rand(1, 6, 6)
print(my_tensor)
maxpool_layer = torch.nn.MaxPool2d(3)
print(maxpool_layer(my_tensor))

my_tensor = rand(1, 4, 4) * 20 + 5
print(my_tensor)
print(my_tensor.mean())
norm_layer = torch.nn.BatchNorm1d(4)
normed_tensor = norm_layer(my_tensor)
print(normed_tensor)
print(normed_tensor.mean())

my_tensor = rand(1, 4, 4)
dropout = torch.nn.Dropout(p=0.4)
dropout.eval()
print(dropout(my_tensor))
dropout.train()
print(dropout(my_tensor).shape)

transformer = torch.nn.Transformer(d_model=16, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                   dim_feedforward=32, dropout=0.0)
print(sum(p.numel() for p in transformer.parameters()))
