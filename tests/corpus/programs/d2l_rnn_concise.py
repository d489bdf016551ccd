# Corpus program: d2l's recurrent networks, concise (current edition): RNNLM with nn.RNN and a LazyLinear output, GRU
#   and LSTM through the same class, a deep GRU (num_layers=2) and a bidirectional RNN, trained with gradient clipping
#   as d2l's Trainer.clip_gradients does, and predict.
# Source: d2l-ai/d2l-en, chapter_recurrent-neural-networks/rnn-concise.md, chapter_recurrent-modern/gru.md, lstm.md,
#   deep-rnn.md and bi-rnn.md (PyTorch tabs).
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the sections.
# Changes: The Time Machine is replaced by a short made-up text; num_hiddens 16; 4 SGD steps per model;
#   d2l.Module/Trainer written out as a small loop.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 recurrent training.
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
text = "the time machine by h g wells the time traveller for so it will be convenient to speak of him "
vocab = sorted(set(text))
token_to_idx = {t: i for i, t in enumerate(vocab)}
corpus = torch.tensor([token_to_idx[c] for c in text])
num_steps, batch_size = 8, 4
X = torch.stack([corpus[i:i + num_steps] for i in range(0, 4 * num_steps, num_steps)])
Y = torch.stack([corpus[i + 1:i + num_steps + 1] for i in range(0, 4 * num_steps, num_steps)])


class RNN(nn.Module):  #@save
    """The RNN model implemented with high-level APIs."""
    def __init__(self, num_inputs, num_hiddens):
        super().__init__()
        self.num_hiddens = num_hiddens
        self.rnn = nn.RNN(num_inputs, num_hiddens)

    def forward(self, inputs, H=None):
        return self.rnn(inputs, H)


class GRU(RNN):  #@save
    """The multilayer GRU model."""
    def __init__(self, num_inputs, num_hiddens, num_layers=1, dropout=0):
        nn.Module.__init__(self)
        self.num_hiddens = num_hiddens
        self.rnn = nn.GRU(num_inputs, num_hiddens, num_layers, dropout=dropout)


class LSTM(RNN):
    def __init__(self, num_inputs, num_hiddens):
        nn.Module.__init__(self)
        self.num_hiddens = num_hiddens
        self.rnn = nn.LSTM(num_inputs, num_hiddens)

    def forward(self, inputs, H_C=None):
        return self.rnn(inputs, H_C)


class BiRNN(RNN):
    def __init__(self, num_inputs, num_hiddens):
        nn.Module.__init__(self)
        self.num_hiddens = num_hiddens
        self.rnn = nn.RNN(num_inputs, num_hiddens, bidirectional=True)
        self.num_hiddens *= 2  # The output dimension will be doubled


class RNNLM(nn.Module):  #@save
    """The RNN-based language model implemented with high-level APIs."""
    def __init__(self, rnn, vocab_size, lr=0.01):
        super().__init__()
        self.rnn = rnn
        self.vocab_size = vocab_size
        self.lr = lr
        self.init_params()

    def init_params(self):
        self.linear = nn.LazyLinear(self.vocab_size)

    def one_hot(self, X):
        # Output shape: (num_steps, batch_size, vocab_size)
        return F.one_hot(X.T, self.vocab_size).type(torch.float32)

    def output_layer(self, hiddens):
        return self.linear(hiddens).swapaxes(0, 1)

    def forward(self, X, state=None):
        embs = self.one_hot(X)
        rnn_outputs, _ = self.rnn(embs, state)
        return self.output_layer(rnn_outputs)

    def loss(self, Y_hat, Y, averaged=True):
        Y_hat = Y_hat.reshape((-1, Y_hat.shape[-1]))
        Y = Y.reshape((-1,))
        return F.cross_entropy(Y_hat, Y, reduction='mean' if averaged else 'none')

    def predict(self, prefix, num_preds, vocab, device=None):
        state, outputs = None, [vocab[prefix[0]]]
        for i in range(len(prefix) + num_preds - 1):
            X = torch.tensor([[outputs[-1]]], device=device)
            embs = self.one_hot(X)
            rnn_outputs, state = self.rnn(embs, state)
            if i < len(prefix) - 1:  # Warm-up period
                outputs.append(vocab[prefix[i + 1]])
            else:  # Predict num_preds steps
                Y = self.output_layer(rnn_outputs)
                outputs.append(int(Y.argmax(axis=2).reshape(1)))
        return ''.join([vocab_list[i] for i in outputs])


def clip_gradients(grad_clip_val, model):
    params = [p for p in model.parameters() if p.requires_grad]
    norm = torch.sqrt(sum(torch.sum(p.grad ** 2) for p in params))
    if norm > grad_clip_val:
        for param in params:
            param.grad[:] *= grad_clip_val / norm


vocab_list = vocab
for rnn in (RNN(num_inputs=len(vocab), num_hiddens=16), GRU(len(vocab), 16), LSTM(len(vocab), 16),
            GRU(len(vocab), 16, num_layers=2), BiRNN(len(vocab), 16)):
    model = RNNLM(rnn, vocab_size=len(vocab), lr=1)
    model(X)
    optimizer = torch.optim.SGD(model.parameters(), lr=model.lr)
    for step in range(4):
        loss = model.loss(model(X), Y)
        optimizer.zero_grad()
        with torch.no_grad():
            loss.backward()
        clip_gradients(1, model)
        optimizer.step()
    print(type(rnn).__name__, round(loss.item(), 4), model.linear.weight.shape)
    if not isinstance(rnn, BiRNN):
        print(repr(model.predict('it has', 6, token_to_idx)))
