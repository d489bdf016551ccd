# Corpus program: DLinear (LTSF-Linear): a series decomposition by a moving average (replicated ends made with
#   x[:, 0:1, :].repeat, nn.AvgPool1d over a permuted series), seasonal and trend Linear layers whose weights are
#   replaced by nn.Parameter((1/seq_len)*torch.ones(...)), the per-channel variant with nn.ModuleList and index
#   assignment into zero tensors; trained with MSE and Adam as exp/exp_main.py does.
# Source: cure-lab/LTSF-Linear, models/DLinear.py (as published) and exp/exp_main.py's training step.
# Licence: Apache-2.0 (LTSF-Linear; not verified: its licence file was not available to read here).
# Changes: a synthetic series (two sines, a trend and noise from NumPy) instead of the ETT data files; seq_len
#   48, pred_len 12, 3 channels, 20 Adam steps for each of the shared and individual models.
# Randomness: np.random.seed(0) for the data, torch.manual_seed(0) for the weights.
# corpus-tolerance: rtol=1e-4 atol=1e-6 -- float32 Adam steps.
from re import X
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy as np
from types import SimpleNamespace

class moving_avg(nn.Module):
    """
    Moving average block to highlight the trend of time series
    """
    def __init__(self, kernel_size, stride):
        super(moving_avg, self).__init__()
        self.kernel_size = kernel_size
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=0)

    def forward(self, x):
        # padding on the both ends of time series
        front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        x = self.avg(x.permute(0, 2, 1))
        x = x.permute(0, 2, 1)
        return x


class series_decomp(nn.Module):
    """
    Series decomposition block
    """
    def __init__(self, kernel_size):
        super(series_decomp, self).__init__()
        self.moving_avg = moving_avg(kernel_size, stride=1)

    def forward(self, x):
        moving_mean = self.moving_avg(x)
        res = x - moving_mean
        return res, moving_mean

class Model(nn.Module):
    """
    DLinear
    """
    def __init__(self, configs):
        super(Model, self).__init__()
        self.seq_len = configs.seq_len
        self.pred_len = configs.pred_len

        # Decompsition Kernel Size
        kernel_size = 25
        self.decompsition = series_decomp(kernel_size)
        self.individual = configs.individual
        self.channels = configs.enc_in

        if self.individual:
            self.Linear_Seasonal = nn.ModuleList()
            self.Linear_Trend = nn.ModuleList()
            self.Linear_Decoder = nn.ModuleList()
            for i in range(self.channels):
                self.Linear_Seasonal.append(nn.Linear(self.seq_len,self.pred_len))
                self.Linear_Seasonal[i].weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))
                self.Linear_Trend.append(nn.Linear(self.seq_len,self.pred_len))
                self.Linear_Trend[i].weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))
                self.Linear_Decoder.append(nn.Linear(self.seq_len,self.pred_len))
        else:
            self.Linear_Seasonal = nn.Linear(self.seq_len,self.pred_len)
            self.Linear_Trend = nn.Linear(self.seq_len,self.pred_len)
            self.Linear_Decoder = nn.Linear(self.seq_len,self.pred_len)
            self.Linear_Seasonal.weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))
            self.Linear_Trend.weight = nn.Parameter((1/self.seq_len)*torch.ones([self.pred_len,self.seq_len]))

    def forward(self, x):
        # x: [Batch, Input length, Channel]
        seasonal_init, trend_init = self.decompsition(x)
        seasonal_init, trend_init = seasonal_init.permute(0,2,1), trend_init.permute(0,2,1)
        if self.individual:
            seasonal_output = torch.zeros([seasonal_init.size(0),seasonal_init.size(1),self.pred_len],dtype=seasonal_init.dtype).to(seasonal_init.device)
            trend_output = torch.zeros([trend_init.size(0),trend_init.size(1),self.pred_len],dtype=trend_init.dtype).to(trend_init.device)
            for i in range(self.channels):
                seasonal_output[:,i,:] = self.Linear_Seasonal[i](seasonal_init[:,i,:])
                trend_output[:,i,:] = self.Linear_Trend[i](trend_init[:,i,:])
        else:
            seasonal_output = self.Linear_Seasonal(seasonal_init)
            trend_output = self.Linear_Trend(trend_init)

        x = seasonal_output + trend_output
        return x.permute(0,2,1) # to [Batch, Output length, Channel]


np.random.seed(0)
t = np.arange(600)
series = np.stack([np.sin(t / 8.0), np.cos(t / 13.0) + t / 300.0, np.sin(t / 5.0) * 0.5], axis=1)
series = (series + 0.05 * np.random.randn(*series.shape)).astype(np.float32)
seq_len, pred_len = 48, 12
starts = np.random.randint(0, len(series) - seq_len - pred_len, size=32)
batch_x = torch.from_numpy(np.stack([series[s:s + seq_len] for s in starts]))
batch_y = torch.from_numpy(np.stack([series[s + seq_len:s + seq_len + pred_len] for s in starts]))

decomp = series_decomp(25)
res, trend = decomp(batch_x[:2])
print(res.shape, trend[0, :3], torch.allclose(res + trend, batch_x[:2]))

for individual in (False, True):
    torch.manual_seed(0)
    configs = SimpleNamespace(seq_len=seq_len, pred_len=pred_len, individual=individual, enc_in=3)
    model = Model(configs)
    print(individual, sum(p.numel() for p in model.parameters() if p.requires_grad))
    model_optim = torch.optim.Adam(model.parameters(), lr=0.005)
    criterion = nn.MSELoss()
    for i in range(20):
        model_optim.zero_grad()
        outputs = model(batch_x)
        f_dim = 0
        outputs = outputs[:, -pred_len:, f_dim:]
        loss = criterion(outputs, batch_y[:, -pred_len:, f_dim:])
        loss.backward()
        model_optim.step()
        if (i + 1) % 5 == 0:
            print("\titers: {0} | loss: {1:.7f}".format(i + 1, loss.item()))
    model.eval()
    with torch.no_grad():
        print(model(batch_x[:1])[0, :3])
