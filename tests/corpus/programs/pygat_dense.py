# Corpus program: pyGAT's dense graph attention: parameters made by the deprecated nn.init.xavier_uniform (no
#   underscore) on torch.Tensor(...).type(torch.cuda.FloatTensor if torch.cuda.is_available() else
#   torch.FloatTensor), all-pairs attention inputs from h.repeat(1, N).view(N * N, -1) and h.repeat(N, 1),
#   torch.where(adj > 0, e, zero_vec) masking, multi-head attention layers registered with add_module, a custom
#   __repr__, and train.py's loop (Adam with weight decay, nll_loss on log_softmax, accuracy from max(1)[1]).
# Source: Diego999/pyGAT, layers.py (GraphAttentionLayer, as stored), models.py (GAT) and train.py's train().
# Licence: MIT (pyGAT).
# Changes: a random graph of 12 nodes with 6 features and 3 classes (symmetric adjacency with self loops, the
#   row normalisation of utils.py) instead of Cora; 8 hidden units, 2 heads, 15 epochs.
# Randomness: np.random.seed(72) for the graph, torch.manual_seed(72) as train.py seeds.
# corpus-tolerance: rtol=1e-4 atol=1e-5 -- float32 attention.
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable


class GraphAttentionLayer(nn.Module):
    """
    Simple GAT layer, similar to https://arxiv.org/abs/1710.10903
    """

    def __init__(self, in_features, out_features, dropout, alpha, concat=True):
        super(GraphAttentionLayer, self).__init__()
        self.dropout = dropout
        self.in_features = in_features
        self.out_features = out_features
        self.alpha = alpha
        self.concat = concat

        self.W = nn.Parameter(nn.init.xavier_uniform(torch.Tensor(in_features, out_features).type(torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor), gain=np.sqrt(2.0)), requires_grad=True)
        self.a = nn.Parameter(nn.init.xavier_uniform(torch.Tensor(2*out_features, 1).type(torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor), gain=np.sqrt(2.0)), requires_grad=True)

        self.leakyrelu = nn.LeakyReLU(self.alpha)

    def forward(self, input, adj):
        h = torch.mm(input, self.W)
        N = h.size()[0]

        a_input = torch.cat([h.repeat(1, N).view(N * N, -1), h.repeat(N, 1)], dim=1).view(N, -1, 2 * self.out_features)
        e = self.leakyrelu(torch.matmul(a_input, self.a).squeeze(2))

        zero_vec = -9e15*torch.ones_like(e)
        attention = torch.where(adj > 0, e, zero_vec)
        attention = F.softmax(attention, dim=1)
        attention = F.dropout(attention, self.dropout, training=self.training)
        h_prime = torch.matmul(attention, h)

        if self.concat:
            return F.elu(h_prime)
        else:
            return h_prime

    def __repr__(self):
        return self.__class__.__name__ + ' (' + str(self.in_features) + ' -> ' + str(self.out_features) + ')'


class GAT(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout, alpha, nheads):
        """Dense version of GAT."""
        super(GAT, self).__init__()
        self.dropout = dropout

        self.attentions = [GraphAttentionLayer(nfeat, nhid, dropout=dropout, alpha=alpha, concat=True) for _ in range(nheads)]
        for i, attention in enumerate(self.attentions):
            self.add_module('attention_{}'.format(i), attention)

        self.out_att = GraphAttentionLayer(nhid * nheads, nclass, dropout=dropout, alpha=alpha, concat=False)

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, training=self.training)
        x = torch.cat([att(x, adj) for att in self.attentions], dim=1)
        x = F.dropout(x, self.dropout, training=self.training)
        x = F.elu(self.out_att(x, adj))
        return F.log_softmax(x, dim=1)


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    correct = correct.sum()
    return correct / len(labels)


def normalize_features(mx):
    """Row-normalize sparse matrix"""
    rowsum = np.array(mx.sum(1))
    r_inv = np.power(rowsum, -1).flatten()
    r_inv[np.isinf(r_inv)] = 0.
    return mx * r_inv[:, None]


np.random.seed(72)
torch.manual_seed(72)
n = 12
upper = np.triu((np.random.rand(n, n) > 0.7).astype(np.float32), 1)
adj = torch.FloatTensor(normalize_features(upper + upper.T + np.eye(n, dtype=np.float32)))
features = torch.FloatTensor(normalize_features(np.random.rand(n, 6).astype(np.float32)))
labels = torch.LongTensor(np.random.randint(0, 3, n))
idx_train, idx_val = torch.LongTensor(range(0, 8)), torch.LongTensor(range(8, 12))

model = GAT(nfeat=features.shape[1], nhid=8, nclass=int(labels.max()) + 1, dropout=0.6, nheads=2, alpha=0.2)
print(model)
optimizer = optim.Adam(model.parameters(), lr=0.005, weight_decay=5e-4)
features, adj, labels = Variable(features), Variable(adj), Variable(labels)


def train(epoch):
    t = time.time()
    model.train()
    optimizer.zero_grad()
    output = model(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()

    model.eval()
    output = model(features, adj)

    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    print('Epoch: {:04d}'.format(epoch+1),
          'loss_train: {:.4f}'.format(loss_train.data.item()),
          'acc_train: {:.4f}'.format(acc_train.data.item()),
          'loss_val: {:.4f}'.format(loss_val.data.item()),
          'acc_val: {:.4f}'.format(acc_val.data.item()))

    return loss_val.data.item()


for epoch in range(15):
    train(epoch)
print(model.attention_0.W.dtype, model.out_att.a.shape, [n for n, _ in model.named_parameters()])
