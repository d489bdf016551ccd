# Corpus program: "NLP From Scratch: Generating Names with a Character-Level RNN".
# Source: pytorch/tutorials, intermediate_source/char_rnn_generation_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: the names files are replaced by a few names per language written here; 120 training
#   steps over the examples in turn instead of random ones; dropout p=0 (a random mask would
#   differ between libraries); sampling takes the top letter, as the tutorial does.
# Randomness: weights set from NumPy; no random sampling.
import string

import numpy as np
import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'-"
n_letters = len(all_letters) + 1
category_lines = {
    "Russian": ["Abakumov", "Babin", "Chaikin", "Dvorak", "Egorov", "Fedorov"],
    "German": ["Abel", "Bauer", "Fischer", "Hoffmann", "Krause", "Schmidt"],
    "Spanish": ["Abana", "Castillo", "Garcia", "Lopez", "Sanchez", "Torres"],
}
all_categories = list(category_lines)
n_categories = len(all_categories)


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(n_categories + input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(n_categories + input_size + hidden_size, output_size)
        self.o2o = nn.Linear(hidden_size + output_size, output_size)
        self.dropout = nn.Dropout(0.0)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, category, input, hidden):
        input_combined = torch.cat((category, input, hidden), 1)
        hidden = self.i2h(input_combined)
        output = self.i2o(input_combined)
        output_combined = torch.cat((hidden, output), 1)
        output = self.o2o(output_combined)
        output = self.dropout(output)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


def categoryTensor(category):
    li = all_categories.index(category)
    tensor = torch.zeros(1, n_categories)
    tensor[0][li] = 1
    return tensor


def inputTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li in range(len(line)):
        letter = line[li]
        tensor[li][0][all_letters.find(letter)] = 1
    return tensor


def targetTensor(line):
    letter_indexes = [all_letters.find(line[li]) for li in range(1, len(line))]
    letter_indexes.append(n_letters - 1)
    return torch.LongTensor(letter_indexes)


criterion = nn.NLLLoss()
learning_rate = 0.0005
rnn = RNN(n_letters, 64, n_letters)
rng = np.random.default_rng(34)
with torch.no_grad():
    for p in rnn.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))


def train(category_tensor, input_line_tensor, target_line_tensor):
    target_line_tensor.unsqueeze_(-1)
    hidden = rnn.initHidden()
    rnn.zero_grad()
    loss = torch.Tensor([0])
    for i in range(input_line_tensor.size(0)):
        output, hidden = rnn(category_tensor, input_line_tensor[i], hidden)
        l = criterion(output, target_line_tensor[i])
        loss += l
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item() / input_line_tensor.size(0)


examples = [(c, line) for i in range(6) for c in all_categories for line in [category_lines[c][i]]]
total_loss = 0
for iter in range(1, 121):
    category, line = examples[(iter - 1) % len(examples)]
    output, loss = train(categoryTensor(category), inputTensor(line), targetTensor(line))
    total_loss += loss
    if iter % 30 == 0:
        print(iter, f"{total_loss / 30:.4f}")
        total_loss = 0

max_length = 8


def sample(category, start_letter="A"):
    with torch.no_grad():
        category_tensor = categoryTensor(category)
        input = inputTensor(start_letter)
        hidden = rnn.initHidden()
        output_name = start_letter
        for i in range(max_length):
            output, hidden = rnn(category_tensor, input[0], hidden)
            topv, topi = output.topk(1)
            topi = topi[0][0]
            if topi == n_letters - 1:
                break
            else:
                letter = all_letters[topi]
                output_name += letter
            input = inputTensor(letter)
        return output_name


def samples(category, start_letters="ABC"):
    for start_letter in start_letters:
        print(sample(category, start_letter))


samples("Russian", "RUS")
samples("German", "GER")
