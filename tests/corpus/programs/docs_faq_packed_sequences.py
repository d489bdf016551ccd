# Corpus program: PyTorch's FAQ on accumulating history and on packed sequences in an RNN
#   (pack_padded_sequence / pad_packed_sequence with total_length), with the nn.utils.rnn helpers.
# Source: pytorch/pytorch, docs/source/notes/faq.rst ("My model reports ... out of memory": total_loss
#   and loss.item(); "My recurrent network doesn't work with data parallelism": MyModule with
#   pack_padded_sequence and total_length) and the examples in torch/nn/utils/rnn.py's docstrings.
# Licence: BSD-3-Clause (PyTorch); the notes' and docstrings' snippets, put together in one script.
# Changes: small sizes, a few iterations; values printed.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 -- float32 LSTM arithmetic.
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)

# "Don't accumulate history across your training loop."
model = nn.Linear(3, 1)
criterion = nn.MSELoss()
total_loss = 0
for i in range(4):
    input, target = torch.randn(2, 3), torch.randn(2, 1)
    output = model(input)
    loss = criterion(output, target)
    loss.backward()
    total_loss += loss.item()
print('%.6f' % total_loss, type(total_loss).__name__)


class MyModule(nn.Module):
    # ... __init__, other methods, etc.
    def __init__(self):
        super().__init__()
        self.my_lstm = nn.LSTM(4, 5, batch_first=True)

    # padded_input is of shape [B x T x *] (batch_first mode) and contains
    # the sequences sorted by lengths
    #   B is the batch size
    #   T is max sequence length
    def forward(self, padded_input, input_lengths):
        total_length = padded_input.size(1)  # get the max sequence length
        packed_input = pack_padded_sequence(padded_input, input_lengths,
                                            batch_first=True)
        packed_output, _ = self.my_lstm(packed_input)
        output, _ = pad_packed_sequence(packed_output, batch_first=True,
                                        total_length=total_length)
        return output


m = MyModule()
padded_input = torch.randn(3, 6, 4)
input_lengths = torch.tensor([5, 3, 2])
out = m(padded_input, input_lengths)
print(out.shape, out[1, 2:5, :2])
out.sum().backward()
print(m.my_lstm.weight_ih_l0.grad.shape)

# torch.nn.utils.rnn docstring examples
a = torch.ones(25, 300)
b = torch.ones(22, 300)
c = torch.ones(15, 300)
print(pad_sequence([a, b, c]).size())
a = torch.tensor([1, 2, 3])
b = torch.tensor([4, 5])
c = torch.tensor([6])
print(pack_sequence([a, b, c]))
seq = torch.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
lens = [2, 1, 3]
packed = pack_padded_sequence(seq, lens, batch_first=True, enforce_sorted=False)
print(packed)
seq_unpacked, lens_unpacked = pad_packed_sequence(packed, batch_first=True)
print(seq_unpacked, lens_unpacked)
print(pad_sequence([torch.tensor([1., 2.]), torch.tensor([3.])], batch_first=True, padding_value=-1.))
