# Corpus program: pytorch/examples "time_sequence_prediction": two LSTMCells learn sine waves,
#   trained with L-BFGS, then predict the future.
# Source: pytorch/examples, time_sequence_prediction/generate_sine_wave.py and train.py
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example's steps.
# Changes: 8 waves of length 50 made in the program (the example writes them to traindata.pt
#   first); hidden width 21 instead of 51; one L-BFGS step of at most 5 evaluations instead of
#   15 steps; 30 future points instead of 1000; no plots.
# Randomness: the waves' offsets come from NumPy (as in the example); weights set from NumPy.
# corpus-tolerance: rtol=1e-4 -- L-BFGS's line search in float64 over long recurrences.
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

np.random.seed(2)
T = 20
L = 50
N = 8
x = np.empty((N, L), np.int64)
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = np.sin(x / 1.0 / T).astype("float64")


class Sequence(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm1 = nn.LSTMCell(1, 21)
        self.lstm2 = nn.LSTMCell(21, 21)
        self.linear = nn.Linear(21, 1)

    def forward(self, input, future=0):
        outputs = []
        h_t = torch.zeros(input.size(0), 21, dtype=torch.double)
        c_t = torch.zeros(input.size(0), 21, dtype=torch.double)
        h_t2 = torch.zeros(input.size(0), 21, dtype=torch.double)
        c_t2 = torch.zeros(input.size(0), 21, dtype=torch.double)
        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


if __name__ == "__main__":
    input = torch.from_numpy(data[3:, :-1])
    target = torch.from_numpy(data[3:, 1:])
    test_input = torch.from_numpy(data[:3, :-1])
    test_target = torch.from_numpy(data[:3, 1:])
    seq = Sequence()
    seq.double()
    rng = np.random.default_rng(46)
    with torch.no_grad():
        for p in seq.parameters():
            p.copy_(torch.from_numpy(rng.uniform(-0.2, 0.2, tuple(p.shape))))
    criterion = nn.MSELoss()
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8, max_iter=5)
    for i in range(1):
        print("STEP: ", i)

        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            print("loss:", f"{loss.item():.6f}")
            loss.backward()
            return loss

        optimizer.step(closure)
        with torch.no_grad():
            future = 30
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            print("test loss:", f"{loss.item():.6f}")
            y = pred.detach().numpy()
        print(y.shape)
