# Corpus program: pytorch/examples "word_language_model": RNNModel (LSTM), batchify, get_batch,
#   repackage_hidden, the training loop with clip_grad_norm_ and the manual SGD update, evaluate.
# Source: pytorch/examples, word_language_model/model.py and main.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: the Wikitext-2 corpus (files) is replaced by a stream of 600 NumPy tokens over 40 words;
#   a 2-layer LSTM of width 32; one epoch of 8 batches; dropout 0 (random masks differ).
# Randomness: weights set from NumPy (the example's init_weights ranges); data from NumPy.
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken, ninp, nhid, nlayers, dropout=0.5, tie_weights=False):
        super().__init__()
        self.ntoken = ntoken
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        if rnn_type in ["LSTM", "GRU"]:
            self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers, dropout=dropout)
        else:
            nonlinearity = {"RNN_TANH": "tanh", "RNN_RELU": "relu"}[rnn_type]
            self.rnn = nn.RNN(ninp, nhid, nlayers, nonlinearity=nonlinearity, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.init_weights()
        self.rnn_type = rnn_type
        self.nhid = nhid
        self.nlayers = nlayers

    def init_weights(self):
        rng = np.random.default_rng(40)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))
        nn.init.zeros_(self.decoder.bias)

    def forward(self, input, hidden):
        emb = self.drop(self.encoder(input))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        decoded = self.decoder(output)
        decoded = decoded.view(-1, self.ntoken)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        if self.rnn_type == "LSTM":
            return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))
        return weight.new_zeros(self.nlayers, bsz, self.nhid)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    data = data.view(bsz, -1).t().contiguous()
    return data


stream = torch.tensor(np.random.default_rng(41).integers(0, 40, 600), dtype=torch.long)
eval_batch_size = 5
train_data = batchify(stream[:480], 10)
val_data = batchify(stream[480:], eval_batch_size)
print(train_data.shape, val_data.shape)

ntokens = 40
model = RNNModel("LSTM", ntokens, 32, 32, 2, 0.0, tie_weights=True)
criterion = nn.NLLLoss()
bptt = 6
lr = 20
clip = 0.25


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def get_batch(source, i):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].view(-1)
    return data, target


def evaluate(data_source):
    model.eval()
    total_loss = 0.
    hidden = model.init_hidden(eval_batch_size)
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, bptt):
            data, targets = get_batch(data_source, i)
            output, hidden = model(data, hidden)
            hidden = repackage_hidden(hidden)
            total_loss += len(data) * criterion(output, targets).item()
    return total_loss / (len(data_source) - 1)


def train():
    model.train()
    total_loss = 0.
    hidden = model.init_hidden(10)
    for batch, i in enumerate(range(0, train_data.size(0) - 1, bptt)):
        data, targets = get_batch(train_data, i)
        model.zero_grad()
        hidden = repackage_hidden(hidden)
        output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-lr)
        total_loss += loss.item()
        if batch % 2 == 1:
            cur_loss = total_loss / 2
            print(f"| epoch 1 | {batch:5d}/{len(train_data) // bptt:5d} batches | lr {lr:02.2f} | "
                  f"loss {cur_loss:5.3f} | ppl {math.exp(cur_loss):8.3f}")
            total_loss = 0


train()
val_loss = evaluate(val_data)
print(f"| end of epoch 1 | valid loss {val_loss:5.3f} | valid ppl {math.exp(val_loss):8.3f}")
