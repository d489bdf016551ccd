# Corpus program: pytorch/examples "word_language_model", its TransformerModel (a subclass of
#   nn.Transformer) with PositionalEncoding and the square subsequent mask.
# Source: pytorch/examples, word_language_model/model.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: tiny sizes (width 16, 2 heads, 1 layer); dropout 0; 3 Adam steps on NumPy tokens.
# Randomness: weights set from NumPy; data from NumPy.
# corpus-tolerance: rtol=2e-4 -- attention and layer norm in float32 through Adam steps.
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.1, max_len=5000):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer("pe", pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.5):
        super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers,
                         num_decoder_layers=1, dropout=dropout)
        self.model_type = "Transformer"
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        mask = (torch.triu(torch.ones(sz, sz)) == 1).transpose(0, 1)
        mask = mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))
        return mask

    def init_weights(self):
        rng = np.random.default_rng(42)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.from_numpy(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))
        nn.init.zeros_(self.decoder.bias)

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


model = TransformerModel(30, 16, 2, 32, 1, dropout=0.0)
print(model._generate_square_subsequent_mask(4))
tokens = torch.tensor(np.random.default_rng(43).integers(0, 30, (9, 3)), dtype=torch.long)
data, targets = tokens[:-1], tokens[1:].reshape(-1)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for step in range(3):
    optimizer.zero_grad()
    output = model(data)
    loss = F.nll_loss(output.view(-1, 30), targets)
    loss.backward()
    optimizer.step()
    print(step, f"{loss.item():.5f}")
print(output.shape)
