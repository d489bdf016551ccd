# Corpus program: "NLP From Scratch: Classifying Names with a Character-Level RNN".
# Source: pytorch/tutorials, intermediate_source/char_rnn_classification_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps
#   (the tutorial's earlier edition, with the RNN cell written from nn.Linear layers).
# Changes: the names files (a download) are replaced by a dozen names per language written here;
#   100 training steps with examples taken in turn instead of 100000 random ones.
# Randomness: weights set from NumPy; examples are taken in order, not sampled.
import string

import numpy as np
import torch
import torch.nn as nn

all_letters = string.ascii_letters + " .,;'"
n_letters = len(all_letters)
category_lines = {
    "English": ["Smith", "Jones", "Taylor", "Brown", "Williams", "Wilson", "Johnson", "Davies"],
    "French": ["Dubois", "Lefevre", "Moreau", "Laurent", "Simon", "Michel", "Garnier", "Rousseau"],
    "Japanese": ["Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Ito", "Yamamoto", "Nakamura"],
}
all_categories = list(category_lines)
n_categories = len(all_categories)


def letterToIndex(letter):
    return all_letters.find(letter)


def letterToTensor(letter):
    tensor = torch.zeros(1, n_letters)
    tensor[0][letterToIndex(letter)] = 1
    return tensor


def lineToTensor(line):
    tensor = torch.zeros(len(line), 1, n_letters)
    for li, letter in enumerate(line):
        tensor[li][0][letterToIndex(letter)] = 1
    return tensor


print(letterToTensor("J"))
print(lineToTensor("Jones").size())


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, output_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.i2h = nn.Linear(input_size + hidden_size, hidden_size)
        self.i2o = nn.Linear(input_size + hidden_size, output_size)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, input, hidden):
        combined = torch.cat((input, hidden), 1)
        hidden = self.i2h(combined)
        output = self.i2o(combined)
        output = self.softmax(output)
        return output, hidden

    def initHidden(self):
        return torch.zeros(1, self.hidden_size)


n_hidden = 128
rnn = RNN(n_letters, n_hidden, n_categories)
rng = np.random.default_rng(33)
with torch.no_grad():
    for p in rnn.parameters():
        p.copy_(torch.from_numpy(rng.uniform(-0.08, 0.08, tuple(p.shape)).astype(np.float32)))

input = letterToTensor("A")
hidden = torch.zeros(1, n_hidden)
output, next_hidden = rnn(input, hidden)
input = lineToTensor("Albert")
output, next_hidden = rnn(input[0], hidden)
print(output)


def categoryFromOutput(output):
    top_n, top_i = output.topk(1)
    category_i = top_i[0].item()
    return all_categories[category_i], category_i


print(categoryFromOutput(output))

criterion = nn.NLLLoss()
learning_rate = 0.005


def train(category_tensor, line_tensor):
    hidden = rnn.initHidden()
    rnn.zero_grad()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    loss = criterion(output, category_tensor)
    loss.backward()
    for p in rnn.parameters():
        p.data.add_(p.grad.data, alpha=-learning_rate)
    return output, loss.item()


examples = [(category, line) for i in range(8) for category in all_categories
            for line in [category_lines[category][i]]]
current_loss = 0
for iter in range(1, 101):
    category, line = examples[(iter - 1) % len(examples)]
    category_tensor = torch.tensor([all_categories.index(category)], dtype=torch.long)
    line_tensor = lineToTensor(line)
    output, loss = train(category_tensor, line_tensor)
    current_loss += loss
    if iter % 25 == 0:
        guess, guess_i = categoryFromOutput(output)
        correct = "✓" if guess == category else f"✗ ({category})"
        print(f"{iter} {current_loss / 25:.4f} {line} / {guess} {correct}")
        current_loss = 0


def evaluate(line_tensor):
    hidden = rnn.initHidden()
    for i in range(line_tensor.size()[0]):
        output, hidden = rnn(line_tensor[i], hidden)
    return output


def predict(input_line, n_predictions=3):
    print(f"\n> {input_line}")
    with torch.no_grad():
        output = evaluate(lineToTensor(input_line))
        topv, topi = output.topk(n_predictions, 1, True)
        for i in range(n_predictions):
            value = topv[0][i].item()
            category_index = topi[0][i].item()
            print(f"({value:.2f}) {all_categories[category_index]}")


predict("Dovesky")
predict("Jackson")
predict("Satoshi")
