# Corpus program: yunjey's language model: an LSTM over a corpus with truncated backpropagation (detach of the states)
#   and sampling with torch.multinomial.
# Source: yunjey/pytorch-tutorial, tutorials/02-intermediate/language_model/main.py and data_utils.py (Dictionary,
#   Corpus).
# Licence: MIT (pytorch-tutorial); re-written here following the files.
# Changes: the Penn Treebank file is replaced by a made-up text; embed 16, hidden 32, seq_length 6; 1 epoch; 10
#   sampled words.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 LSTM training.
import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')


class Dictionary:
    def __init__(self):
        self.word2idx = {}
        self.idx2word = {}
        self.idx = 0

    def add_word(self, word):
        if not word in self.word2idx:  # noqa: E713
            self.word2idx[word] = self.idx
            self.idx2word[self.idx] = word
            self.idx += 1

    def __len__(self):
        return len(self.word2idx)


class Corpus:
    def __init__(self):
        self.dictionary = Dictionary()

    def get_data(self, lines, batch_size=20):
        tokens = 0
        for line in lines:
            words = line.split() + ['<eos>']
            tokens += len(words)
            for word in words:
                self.dictionary.add_word(word)
        ids = torch.LongTensor(tokens)
        token = 0
        for line in lines:
            words = line.split() + ['<eos>']
            for word in words:
                ids[token] = self.dictionary.word2idx[word]
                token += 1
        num_batches = ids.size(0) // batch_size
        ids = ids[:num_batches*batch_size]
        return ids.view(batch_size, -1)


embed_size = 16
hidden_size = 32
num_layers = 1
num_epochs = 1
num_samples = 10
batch_size = 4
seq_length = 6
learning_rate = 0.002
lines = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog met on a mat",
         "the log was on the mat", "no dog and no cat sat"] * 3
corpus = Corpus()
ids = corpus.get_data(lines, batch_size)
vocab_size = len(corpus.dictionary)
num_batches = ids.size(1) // seq_length
print(ids.shape, vocab_size)


class RNNLM(nn.Module):
    def __init__(self, vocab_size, embed_size, hidden_size, num_layers):
        super(RNNLM, self).__init__()
        self.embed = nn.Embedding(vocab_size, embed_size)
        self.lstm = nn.LSTM(embed_size, hidden_size, num_layers, batch_first=True)
        self.linear = nn.Linear(hidden_size, vocab_size)

    def forward(self, x, h):
        x = self.embed(x)
        out, (h, c) = self.lstm(x, h)
        out = out.reshape(out.size(0)*out.size(1), out.size(2))
        out = self.linear(out)
        return out, (h, c)


model = RNNLM(vocab_size, embed_size, hidden_size, num_layers).to(device)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=learning_rate)


def detach(states):
    return [state.detach() for state in states]


for epoch in range(num_epochs):
    states = (torch.zeros(num_layers, batch_size, hidden_size).to(device),
              torch.zeros(num_layers, batch_size, hidden_size).to(device))
    for i in range(0, ids.size(1) - seq_length, seq_length):
        inputs = ids[:, i:i+seq_length].to(device)
        targets = ids[:, (i+1):(i+1)+seq_length].to(device)
        states = detach(states)
        outputs, states = model(inputs, states)
        loss = criterion(outputs, targets.reshape(-1))
        model.zero_grad()
        loss.backward()
        clip_grad_norm_(model.parameters(), 0.5)
        optimizer.step()
        step = (i+1) // seq_length
        print (f'Epoch [{epoch+1}/{num_epochs}], Step[{step}/{num_batches}], Loss: {loss.item():.4f}, Perplexity: {np.exp(loss.item()):5.2f}'
               )

with torch.no_grad():
    words = []
    state = (torch.zeros(num_layers, 1, hidden_size).to(device),
             torch.zeros(num_layers, 1, hidden_size).to(device))
    prob = torch.ones(vocab_size)
    input = torch.multinomial(prob, num_samples=1).unsqueeze(1).to(device)
    for i in range(num_samples):
        output, state = model(input, state)
        prob = output.exp()
        word_id = torch.multinomial(prob, num_samples=1).item()
        input.fill_(word_id)
        word = corpus.dictionary.idx2word[word_id]
        word = '\n' if word == '<eos>' else word + ' '
        words.append(word)
    print(''.join(words))
