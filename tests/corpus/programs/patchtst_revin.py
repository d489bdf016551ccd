# Corpus program: PatchTST's instance normalisation and patching: RevIN (statistics over all but the first and
#   last dims with torch.var(unbiased=False), detached; an affine pair of parameters; norm and denorm modes,
#   subtract_last), the series padded with nn.ReplicationPad1d((0, stride)) and cut into patches with
#   Tensor.unfold(dimension=-1, size=patch_len, step=stride), then a flatten head (nn.Flatten(start_dim=-2)).
# Source: yuqinie98/PatchTST, PatchTST_supervised/layers/RevIN.py (as published) and the patching in
#   layers/PatchTST_backbone.py (PatchTST_backbone.forward, Flatten_Head), with the backbone's encoder replaced
#   by a Linear embedding of each patch.
# Licence: Apache-2.0 (PatchTST; not verified: its licence file was not available to read here).
# Changes: a tiny backbone (patch_len 8, stride 4, d_model 16) on a synthetic 3-channel series from NumPy; 15
#   Adam steps; both RevIN modes checked to invert each other.
# Randomness: np.random.seed(0) for the data, torch.manual_seed(0) for the weights.
# corpus-tolerance: rtol=1e-4 atol=1e-6 -- float32 training.
import numpy as np
import torch
import torch.nn as nn


class RevIN(nn.Module):
    def __init__(self, num_features: int, eps=1e-5, affine=True, subtract_last=False):
        """
        :param num_features: the number of features or channels
        :param eps: a value added for numerical stability
        :param affine: if True, RevIN has learnable affine parameters
        """
        super(RevIN, self).__init__()
        self.num_features = num_features
        self.eps = eps
        self.affine = affine
        self.subtract_last = subtract_last
        if self.affine:
            self._init_params()

    def forward(self, x, mode:str):
        if mode == 'norm':
            self._get_statistics(x)
            x = self._normalize(x)
        elif mode == 'denorm':
            x = self._denormalize(x)
        else: raise NotImplementedError
        return x

    def _init_params(self):
        # initialize RevIN params: (C,)
        self.affine_weight = nn.Parameter(torch.ones(self.num_features))
        self.affine_bias = nn.Parameter(torch.zeros(self.num_features))

    def _get_statistics(self, x):
        dim2reduce = tuple(range(1, x.ndim-1))
        if self.subtract_last:
            self.last = x[:,-1,:].unsqueeze(1)
        else:
            self.mean = torch.mean(x, dim=dim2reduce, keepdim=True).detach()
        self.stdev = torch.sqrt(torch.var(x, dim=dim2reduce, keepdim=True, unbiased=False) + self.eps).detach()

    def _normalize(self, x):
        if self.subtract_last:
            x = x - self.last
        else:
            x = x - self.mean
        x = x / self.stdev
        if self.affine:
            x = x * self.affine_weight
            x = x + self.affine_bias
        return x

    def _denormalize(self, x):
        if self.affine:
            x = x - self.affine_bias
            x = x / (self.affine_weight + self.eps*self.eps)
        x = x * self.stdev
        if self.subtract_last:
            x = x + self.last
        else:
            x = x + self.mean
        return x


class Flatten_Head(nn.Module):
    def __init__(self, individual, n_vars, nf, target_window, head_dropout=0):
        super().__init__()

        self.individual = individual
        self.n_vars = n_vars

        if self.individual:
            self.linears = nn.ModuleList()
            self.dropouts = nn.ModuleList()
            self.flattens = nn.ModuleList()
            for i in range(self.n_vars):
                self.flattens.append(nn.Flatten(start_dim=-2))
                self.linears.append(nn.Linear(nf, target_window))
                self.dropouts.append(nn.Dropout(head_dropout))
        else:
            self.flatten = nn.Flatten(start_dim=-2)
            self.linear = nn.Linear(nf, target_window)
            self.dropout = nn.Dropout(head_dropout)

    def forward(self, x):                                 # x: [bs x nvars x d_model x patch_num]
        if self.individual:
            x_out = []
            for i in range(self.n_vars):
                z = self.flattens[i](x[:,i,:,:])          # z: [bs x d_model * patch_num]
                z = self.linears[i](z)                    # z: [bs x target_window]
                z = self.dropouts[i](z)
                x_out.append(z)
            x = torch.stack(x_out, dim=1)                 # x: [bs x nvars x target_window]
        else:
            x = self.flatten(x)
            x = self.linear(x)
            x = self.dropout(x)
        return x


class TinyPatchTST(nn.Module):
    """PatchTST_backbone's forward with a Linear patch embedding standing in for its TSTiEncoder."""

    def __init__(self, c_in, context_window, target_window, patch_len, stride, d_model, individual=False,
                 revin=True, affine=True, subtract_last=False, padding_patch='end'):
        super().__init__()
        self.revin = revin
        if self.revin: self.revin_layer = RevIN(c_in, affine=affine, subtract_last=subtract_last)
        self.patch_len = patch_len
        self.stride = stride
        self.padding_patch = padding_patch
        patch_num = int((context_window - patch_len)/stride + 1)
        if padding_patch == 'end': # can be modified to general case
            self.padding_patch_layer = nn.ReplicationPad1d((0, stride))
            patch_num += 1
        self.backbone = nn.Linear(patch_len, d_model)
        self.head_nf = d_model * patch_num
        self.head = Flatten_Head(individual, c_in, self.head_nf, target_window)

    def forward(self, z):                                                                   # z: [bs x nvars x seq_len]
        # norm
        if self.revin:
            z = z.permute(0,2,1)
            z = self.revin_layer(z, 'norm')
            z = z.permute(0,2,1)

        # do patching
        if self.padding_patch == 'end':
            z = self.padding_patch_layer(z)
        z = z.unfold(dimension=-1, size=self.patch_len, step=self.stride)                   # z: [bs x nvars x patch_num x patch_len]
        z = z.permute(0,1,3,2)                                                              # z: [bs x nvars x patch_len x patch_num]

        # model
        z = self.backbone(z.permute(0,1,3,2)).permute(0,1,3,2)                             # z: [bs x nvars x d_model x patch_num]
        z = self.head(z)                                                                    # z: [bs x nvars x target_window]

        # denorm
        if self.revin:
            z = z.permute(0,2,1)
            z = self.revin_layer(z, 'denorm')
            z = z.permute(0,2,1)
        return z


np.random.seed(0)
t = np.arange(400)
series = np.stack([np.sin(t / 6.0) * 3 + 5, np.cos(t / 11.0) + t / 100.0, np.random.randn(400) * 0.3], axis=1)
series = series.astype(np.float32)
starts = np.random.randint(0, 400 - 48, size=16)
x = torch.from_numpy(np.stack([series[s:s + 36] for s in starts]))      # [bs x seq_len x nvars]
y = torch.from_numpy(np.stack([series[s + 36:s + 48] for s in starts]))

revin = RevIN(3, subtract_last=False)
normed = revin(x, 'norm')
print(normed.mean(1)[0], torch.allclose(revin(normed, 'denorm'), x, atol=1e-4))
last = RevIN(3, affine=False, subtract_last=True)
print(last(x, 'norm')[0, -1], last.stdev.shape)

for individual in (False, True):
    torch.manual_seed(0)
    model = TinyPatchTST(c_in=3, context_window=36, target_window=12, patch_len=8, stride=4, d_model=16,
                         individual=individual)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    for step in range(15):
        out = model(x.permute(0, 2, 1)).permute(0, 2, 1)
        loss = nn.functional.mse_loss(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 5 == 4:
            print(individual, step, round(loss.item(), 6))
    print(model.head_nf, model.revin_layer.affine_weight.data)
