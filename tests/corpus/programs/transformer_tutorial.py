# Corpus program: "Language Modeling with nn.Transformer and torchtext" (the model and its training).
# Source: pytorch/tutorials, beginner_source/transformer_tutorial.py
# Licence: BSD-3-Clause (PyTorch tutorials); re-written here following the tutorial's steps.
# Changes: WikiText-2 and torchtext (downloads) are replaced by a token stream made with NumPy over
#   a vocabulary of 50; a 2-layer model of width 32; 6 training batches; dropout 0 (random masks
#   differ between libraries).
# Randomness: weights set from NumPy; data from NumPy.
# corpus-tolerance: rtol=2e-4 -- attention, layer norm and six Adam-free SGD steps through two
#   encoder layers accumulate float32 rounding differences slightly above one printed unit.
import math

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import TransformerEncoder, TransformerEncoderLayer


class TransformerModel(nn.Module):
    def __init__(self, ntoken: int, d_model: int, nhead: int, d_hid: int, nlayers: int, dropout: float = 0.5):
        super().__init__()
        self.model_type = "Transformer"
        self.pos_encoder = PositionalEncoding(d_model, dropout)
        encoder_layers = TransformerEncoderLayer(d_model, nhead, d_hid, dropout)
        self.transformer_encoder = TransformerEncoder(encoder_layers, nlayers, enable_nested_tensor=False)
        self.embedding = nn.Embedding(ntoken, d_model)
        self.d_model = d_model
        self.linear = nn.Linear(d_model, ntoken)
        self.init_weights()

    def init_weights(self) -> None:
        initrange = 0.1
        rng = np.random.default_rng(36)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.from_numpy(rng.uniform(-initrange, initrange, tuple(p.shape)).astype(np.float32)))
        self.linear.bias.data.zero_()

    def forward(self, src: Tensor, src_mask: Tensor = None) -> Tensor:
        src = self.embedding(src) * math.sqrt(self.d_model)
        src = self.pos_encoder(src)
        if src_mask is None:
            src_mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        output = self.transformer_encoder(src, src_mask)
        output = self.linear(output)
        return output


class PositionalEncoding(nn.Module):
    def __init__(self, d_model: int, dropout: float = 0.1, max_len: int = 5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term)
        pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.pe[:x.size(0)]
        return self.dropout(x)


def batchify(data: Tensor, bsz: int) -> Tensor:
    seq_len = data.size(0) // bsz
    data = data[:seq_len * bsz]
    data = data.view(bsz, seq_len).t().contiguous()
    return data


bptt = 8


def get_batch(source: Tensor, i: int):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    return data, target


stream = np.random.default_rng(37).integers(0, 50, 400)
train_data = batchify(torch.tensor(stream, dtype=torch.long), 8)
print(train_data.shape)

ntokens = 50
model = TransformerModel(ntokens, 32, 2, 64, 2, 0.0)
print(sum(p.numel() for p in model.parameters()))
criterion = nn.CrossEntropyLoss()
lr = 5.0
optimizer = torch.optim.SGD(model.parameters(), lr=lr)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 1.0, gamma=0.95)

model.train()
total_loss = 0.
for batch, i in enumerate(range(0, 6 * bptt, bptt)):
    data, targets = get_batch(train_data, i)
    output = model(data)
    output_flat = output.view(-1, ntokens)
    loss = criterion(output_flat, targets)
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    print(batch, f"{loss.item():.4f}", f"{math.exp(loss.item()):.3f}")
scheduler.step()
print(scheduler.get_last_lr())

model.eval()
with torch.no_grad():
    data, targets = get_batch(train_data, 6 * bptt)
    output = model(data)
    print(f"{criterion(output.view(-1, ntokens), targets).item():.4f}")
