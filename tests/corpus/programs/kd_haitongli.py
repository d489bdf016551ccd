# Corpus program: knowledge distillation as the CS230 project code does it: a three-block CNN with BatchNorm,
#   max_pool2d and functional dropout (training=self.training), a Params object built from a JSON file, the
#   KD loss nn.KLDivLoss()(F.log_softmax(outputs/T), F.softmax(teacher_outputs/T)) * alpha*T*T plus
#   cross-entropy, a teacher run under torch.no_grad and eval(), and the NumPy accuracy metric.
# Source: haitongli/knowledge-distillation-pytorch, model/net.py (Net, loss_fn, loss_fn_kd), utils.py
#   (Params, RunningAverage) and train.py's train_kd loop (fetch_teacher_outputs, the summary of metrics).
# Licence: MIT (haitongli/knowledge-distillation-pytorch).
# Changes: random 32x32 images instead of CIFAR-10, num_channels 4, a teacher that is another Net with 8
#   channels (untrained), 2 epochs of 3 batches of 16; SGD as params.json gives; tqdm and logging left out.
# Randomness: torch.manual_seed(230) as train.py does (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-5 -- float32 convolutions and batch statistics.
import json
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable


class Params():
    """Class that loads hyperparameters from a json file."""

    def __init__(self, json_path):
        with open(json_path) as f:
            params = json.load(f)
            self.__dict__.update(params)

    def save(self, json_path):
        with open(json_path, 'w') as f:
            json.dump(self.__dict__, f, indent=4)

    def update(self, json_path):
        """Loads parameters from json file"""
        with open(json_path) as f:
            params = json.load(f)
            self.__dict__.update(params)

    @property
    def dict(self):
        """Gives dict-like access to Params instance by `params.dict['learning_rate']"""
        return self.__dict__


class RunningAverage():
    def __init__(self):
        self.steps = 0
        self.total = 0

    def update(self, val):
        self.total += val
        self.steps += 1

    def __call__(self):
        return self.total/float(self.steps)


class Net(nn.Module):
    def __init__(self, params):
        super(Net, self).__init__()
        self.num_channels = params.num_channels

        self.conv1 = nn.Conv2d(3, self.num_channels, 3, stride=1, padding=1)
        self.bn1 = nn.BatchNorm2d(self.num_channels)
        self.conv2 = nn.Conv2d(self.num_channels, self.num_channels*2, 3, stride=1, padding=1)
        self.bn2 = nn.BatchNorm2d(self.num_channels*2)
        self.conv3 = nn.Conv2d(self.num_channels*2, self.num_channels*4, 3, stride=1, padding=1)
        self.bn3 = nn.BatchNorm2d(self.num_channels*4)

        # 2 fully connected layers to transform the output of the convolution layers to the final output
        self.fc1 = nn.Linear(4*4*self.num_channels*4, self.num_channels*4)
        self.fcbn1 = nn.BatchNorm1d(self.num_channels*4)
        self.fc2 = nn.Linear(self.num_channels*4, 10)
        self.dropout_rate = params.dropout_rate

    def forward(self, s):
        s = self.bn1(self.conv1(s))                         # batch_size x num_channels x 32 x 32
        s = F.relu(F.max_pool2d(s, 2))                      # batch_size x num_channels x 16 x 16
        s = self.bn2(self.conv2(s))                         # batch_size x num_channels*2 x 16 x 16
        s = F.relu(F.max_pool2d(s, 2))                      # batch_size x num_channels*2 x 8 x 8
        s = self.bn3(self.conv3(s))                         # batch_size x num_channels*4 x 8 x 8
        s = F.relu(F.max_pool2d(s, 2))                      # batch_size x num_channels*4 x 4 x 4

        # flatten the output for each image
        s = s.view(-1, 4*4*self.num_channels*4)             # batch_size x 4*4*num_channels*4

        # apply 2 fully connected layers with dropout
        s = F.dropout(F.relu(self.fcbn1(self.fc1(s))),
            p=self.dropout_rate, training=self.training)    # batch_size x self.num_channels*4
        s = self.fc2(s)                                     # batch_size x 10

        return s


def loss_fn(outputs, labels):
    return nn.CrossEntropyLoss()(outputs, labels)


def loss_fn_kd(outputs, labels, teacher_outputs, params):
    alpha = params.alpha
    T = params.temperature
    KD_loss = nn.KLDivLoss()(F.log_softmax(outputs/T, dim=1),
                             F.softmax(teacher_outputs/T, dim=1)) * (alpha * T * T) + \
              F.cross_entropy(outputs, labels) * (1. - alpha)

    return KD_loss


def accuracy(outputs, labels):
    outputs = np.argmax(outputs, axis=1)
    return np.sum(outputs==labels)/float(labels.size)


metrics = {
    'accuracy': accuracy,
}


def fetch_teacher_outputs(teacher_model, dataloader, params):
    # set teacher_model to evaluation mode
    teacher_model.eval()
    teacher_outputs = []
    for i, (data_batch, labels_batch) in enumerate(dataloader):
        data_batch, labels_batch = Variable(data_batch), Variable(labels_batch)

        output_teacher_batch = teacher_model(data_batch).data.cpu().numpy()
        teacher_outputs.append(output_teacher_batch)

    return teacher_outputs


def train_kd(model, teacher_outputs, optimizer, loss_fn_kd, dataloader, metrics, params):
    # set model to training mode
    model.train()
    summ = []
    loss_avg = RunningAverage()

    for i, (train_batch, labels_batch) in enumerate(dataloader):
        train_batch, labels_batch = Variable(train_batch), Variable(labels_batch)

        # compute model output, fetch teacher output, and compute KD loss
        output_batch = model(train_batch)

        # get one batch output from teacher_outputs list
        output_teacher_batch = torch.from_numpy(teacher_outputs[i])
        output_teacher_batch = Variable(output_teacher_batch, requires_grad=False)

        loss = loss_fn_kd(output_batch, labels_batch, output_teacher_batch, params)

        # clear previous gradients, compute gradients of all variables wrt loss
        optimizer.zero_grad()
        loss.backward()

        # performs updates using calculated gradients
        optimizer.step()

        # Evaluate summaries only once in a while
        if i % params.save_summary_steps == 0:
            # extract data from torch Variable, move to cpu, convert to numpy arrays
            output_batch = output_batch.data.cpu().numpy()
            labels_batch = labels_batch.data.cpu().numpy()

            # compute all metrics on this batch
            summary_batch = {metric:metrics[metric](output_batch, labels_batch)
                             for metric in metrics}
            summary_batch['loss'] = loss.item()
            summ.append(summary_batch)

        # update the average loss
        loss_avg.update(loss.item())

    # compute mean of all metrics in summary
    metrics_mean = {metric:np.mean([x[metric] for x in summ]) for metric in summ[0]}
    metrics_string = " ; ".join("{}: {:05.3f}".format(k, v) for k, v in metrics_mean.items())
    print("- Train metrics: " + metrics_string, "; average loss {:.5f}".format(loss_avg()))


with open('params.json', 'w') as f:
    json.dump({"model_version": "cnn_distill", "subset_percent": 1.0, "augmentation": "no",
               "teacher": "resnet18", "alpha": 0.9, "temperature": 20, "learning_rate": 1e-3,
               "batch_size": 16, "num_epochs": 2, "dropout_rate": 0.5, "num_channels": 4,
               "save_summary_steps": 1, "num_workers": 0}, f)
params = Params('params.json')
print(params.dict)
torch.manual_seed(230)

images = torch.randn(48, 3, 32, 32)
labels = torch.randint(0, 10, (48,))
dataloader = [(images[i:i + params.batch_size], labels[i:i + params.batch_size])
              for i in range(0, 48, params.batch_size)]

model = Net(params)
teacher_params = Params('params.json')
teacher_params.num_channels = 8
teacher_model = Net(teacher_params)
optimizer = optim.SGD(model.parameters(), lr=params.learning_rate * 100, momentum=0.9)

teacher_outputs = fetch_teacher_outputs(teacher_model, dataloader, params)
print(len(teacher_outputs), teacher_outputs[0].shape, teacher_outputs[0].dtype)
for epoch in range(params.num_epochs):
    print("Epoch {}/{}".format(epoch + 1, params.num_epochs))
    train_kd(model, teacher_outputs, optimizer, loss_fn_kd, dataloader, metrics, params)

model.eval()
with torch.no_grad():
    out = model(images[:4])
print(out[:, :5], loss_fn(out, labels[:4]).item())
os.remove('params.json')
