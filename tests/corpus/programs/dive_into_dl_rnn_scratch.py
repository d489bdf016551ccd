# Corpus program: Dive-into-DL-PyTorch's RNN from scratch: one-hot inputs, get_params with nn.ParameterList, rnn with
#   torch.tanh, grad_clipping by the global norm and predict_rnn.
# Source: ShusenTang/Dive-into-DL-PyTorch, code/chapter06_RNN/6.4_rnn-scratch.ipynb and code/d2lzh_pytorch/utils.py
#   (one_hot, to_onehot, get_params, init_rnn_state, rnn, predict_rnn, grad_clipping).
# Licence: Apache-2.0 (Dive-into-DL-PyTorch); re-written here following the notebook and utils.py.
# Changes: the Jay Chou lyrics are replaced by a short made-up text; 30 training steps on consecutive batches; hidden
#   16.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 RNN training.
import math

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
corpus_chars = "想要有直升机 想要和你飞到宇宙去 想要和你融化在一起 融化在宇宙里 我每天每天每天在想想想想著你"
idx_to_char = list(set(corpus_chars))
idx_to_char.sort()
char_to_idx = dict([(char, i) for i, char in enumerate(idx_to_char)])
vocab_size = len(char_to_idx)
corpus_indices = [char_to_idx[char] for char in corpus_chars]


def one_hot(x, n_class, dtype=torch.float32):
    # X shape: (batch), output shape: (batch, n_class)
    x = x.long()
    res = torch.zeros(x.shape[0], n_class, dtype=dtype, device=x.device)
    res.scatter_(1, x.view(-1, 1), 1)
    return res


x = torch.tensor([0, 2])
print(one_hot(x, vocab_size)[:, :4])


def to_onehot(X, n_class):
    # X shape: (batch, seq_len), output: seq_len elements of (batch, n_class)
    return [one_hot(X[:, i], n_class) for i in range(X.shape[1])]


X = torch.arange(10).view(2, 5)
inputs = to_onehot(X, vocab_size)
print(len(inputs), inputs[0].shape)

num_inputs, num_hiddens, num_outputs = vocab_size, 16, vocab_size


def get_params():
    def _one(shape):
        ts = torch.tensor(np.random.normal(0, 0.01, size=shape), device=device, dtype=torch.float32)
        return torch.nn.Parameter(ts, requires_grad=True)

    # 隐藏层参数
    W_xh = _one((num_inputs, num_hiddens))
    W_hh = _one((num_hiddens, num_hiddens))
    b_h = torch.nn.Parameter(torch.zeros(num_hiddens, device=device, requires_grad=True))
    # 输出层参数
    W_hq = _one((num_hiddens, num_outputs))
    b_q = torch.nn.Parameter(torch.zeros(num_outputs, device=device, requires_grad=True))
    return nn.ParameterList([W_xh, W_hh, b_h, W_hq, b_q])


def init_rnn_state(batch_size, num_hiddens, device):
    return (torch.zeros((batch_size, num_hiddens), device=device), )


def rnn(inputs, state, params):
    # inputs和outputs皆为num_steps个形状为(batch_size, vocab_size)的矩阵
    W_xh, W_hh, b_h, W_hq, b_q = params
    H, = state
    outputs = []
    for X in inputs:
        H = torch.tanh(torch.matmul(X, W_xh) + torch.matmul(H, W_hh) + b_h)
        Y = torch.matmul(H, W_hq) + b_q
        outputs.append(Y)
    return outputs, (H,)


np.random.seed(0)
state = init_rnn_state(X.shape[0], num_hiddens, device)
inputs = to_onehot(X.to(device), vocab_size)
params = get_params()
outputs, state_new = rnn(inputs, state, params)
print(len(outputs), outputs[0].shape, state_new[0].shape)


def predict_rnn(prefix, num_chars, rnn, params, init_rnn_state,
                num_hiddens, vocab_size, device, idx_to_char, char_to_idx):
    state = init_rnn_state(1, num_hiddens, device)
    output = [char_to_idx[prefix[0]]]
    for t in range(num_chars + len(prefix) - 1):
        # 将上一时间步的输出作为当前时间步的输入
        X = to_onehot(torch.tensor([[output[-1]]], device=device), vocab_size)
        # 计算输出和更新隐藏状态
        (Y, state) = rnn(X, state, params)
        # 下一个时间步的输入是prefix里的字符或者当前的最佳预测字符
        if t < len(prefix) - 1:
            output.append(char_to_idx[prefix[t + 1]])
        else:
            output.append(int(Y[0].argmax(dim=1).item()))
    return ''.join([idx_to_char[i] for i in output])


print(predict_rnn('想要', 5, rnn, params, init_rnn_state, num_hiddens, vocab_size, device, idx_to_char, char_to_idx))


def grad_clipping(params, theta, device):
    norm = torch.tensor([0.0], device=device)
    for param in params:
        norm += (param.grad.data ** 2).sum()
    norm = norm.sqrt().item()
    if norm > theta:
        for param in params:
            param.grad.data *= (theta / norm)


def sgd(params, lr, batch_size):
    for param in params:
        param.data -= lr * param.grad / batch_size


def data_iter_consecutive(corpus_indices, batch_size, num_steps, device=None):
    corpus_indices = torch.tensor(corpus_indices, dtype=torch.float32, device=device)
    data_len = len(corpus_indices)
    batch_len = data_len // batch_size
    indices = corpus_indices[0: batch_size*batch_len].view(batch_size, batch_len)
    epoch_size = (batch_len - 1) // num_steps
    for i in range(epoch_size):
        i = i * num_steps
        X = indices[:, i: i + num_steps]
        Y = indices[:, i + 1: i + num_steps + 1]
        yield X, Y


loss = nn.CrossEntropyLoss()
lr, clipping_theta, batch_size, num_steps = 1e2, 1e-2, 2, 5
for epoch in range(6):
    state = init_rnn_state(batch_size, num_hiddens, device)
    l_sum, n = 0.0, 0
    for X, Y in data_iter_consecutive(corpus_indices, batch_size, num_steps, device):
        for s in state:
            s.detach_()
        inputs = to_onehot(X, vocab_size)
        (outputs, state) = rnn(inputs, state, params)
        outputs = torch.cat(outputs, dim=0)
        y = torch.transpose(Y, 0, 1).contiguous().view(-1)
        l = loss(outputs, y.long())
        if params[0].grad is not None:
            for param in params:
                param.grad.data.zero_()
        l.backward()
        grad_clipping(params, clipping_theta, device)
        sgd(params, lr, 1)
        l_sum += l.item() * y.shape[0]
        n += y.shape[0]
    print('epoch %d, perplexity %f' % (epoch + 1, math.exp(l_sum / n)))
print(predict_rnn('想要', 8, rnn, params, init_rnn_state, num_hiddens, vocab_size, device, idx_to_char, char_to_idx))
