# Corpus program: pytorch-cifar's training script (main.py) driving its LeNet (models/lenet.py).
# Source: kuangliu/pytorch-cifar, main.py (train/test loops, checkpointing, CosineAnnealingLR) and
#   models/lenet.py (https://github.com/kuangliu/pytorch-cifar).
# Licence: MIT (pytorch-cifar); re-written here following the two files.
# Changes: CIFAR-10 and its torchvision transforms are replaced by 64 random 3x32x32 images with
#   random labels in a TensorDataset; 2 epochs of 4 batches; the progress bar prints one line per epoch;
#   the checkpoint goes to a temporary folder.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers), DataLoader shuffling included.
# corpus-tolerance: rtol=1e-4 -- float32 training of a small CNN.
import os
import tempfile

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class LeNet(nn.Module):
    def __init__(self):
        super(LeNet, self).__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1   = nn.Linear(16*5*5, 120)
        self.fc2   = nn.Linear(120, 84)
        self.fc3   = nn.Linear(84, 10)

    def forward(self, x):
        out = F.relu(self.conv1(x))
        out = F.max_pool2d(out, 2)
        out = F.relu(self.conv2(out))
        out = F.max_pool2d(out, 2)
        out = out.view(out.size(0), -1)
        out = F.relu(self.fc1(out))
        out = F.relu(self.fc2(out))
        out = self.fc3(out)
        return out


torch.manual_seed(0)
device = 'cuda' if torch.cuda.is_available() else 'cpu'
best_acc = 0  # best test accuracy
start_epoch = 0  # start from epoch 0 or last checkpoint epoch

print('==> Preparing data..')
images = torch.randn(64, 3, 32, 32)
labels = torch.randint(0, 10, (64,))
trainset = torch.utils.data.TensorDataset(images[:48], labels[:48])
trainloader = torch.utils.data.DataLoader(trainset, batch_size=12, shuffle=True, num_workers=0)
testset = torch.utils.data.TensorDataset(images[48:], labels[48:])
testloader = torch.utils.data.DataLoader(testset, batch_size=8, shuffle=False, num_workers=0)
classes = ('plane', 'car', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck')

print('==> Building model..')
net = LeNet()
net = net.to(device)
if device == 'cuda':
    net = torch.nn.DataParallel(net)
    cudnn.benchmark = True

criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)


def train(epoch):
    print('\nEpoch: %d' % epoch)
    net.train()
    train_loss = 0
    correct = 0
    total = 0
    for batch_idx, (inputs, targets) in enumerate(trainloader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = net(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()

        train_loss += loss.item()
        _, predicted = outputs.max(1)
        total += targets.size(0)
        correct += predicted.eq(targets).sum().item()
    print('Loss: %.4f | Acc: %.3f%% (%d/%d)' % (train_loss/(batch_idx+1), 100.*correct/total, correct, total))


def test(epoch, folder):
    global best_acc
    net.eval()
    test_loss = 0
    correct = 0
    total = 0
    with torch.no_grad():
        for batch_idx, (inputs, targets) in enumerate(testloader):
            inputs, targets = inputs.to(device), targets.to(device)
            outputs = net(inputs)
            loss = criterion(outputs, targets)

            test_loss += loss.item()
            _, predicted = outputs.max(1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
    print('Test Loss: %.4f | Acc: %.3f%% (%d/%d)' % (test_loss/(batch_idx+1), 100.*correct/total, correct, total))

    # Save checkpoint.
    acc = 100.*correct/total
    if acc >= best_acc:
        print('Saving..')
        state = {
            'net': net.state_dict(),
            'acc': acc,
            'epoch': epoch,
        }
        if not os.path.isdir(os.path.join(folder, 'checkpoint')):
            os.mkdir(os.path.join(folder, 'checkpoint'))
        torch.save(state, os.path.join(folder, 'checkpoint', 'ckpt.pth'))
        best_acc = acc


with tempfile.TemporaryDirectory() as folder:
    for epoch in range(start_epoch, start_epoch+2):
        train(epoch)
        test(epoch, folder)
        scheduler.step()
        print('lr', scheduler.get_last_lr())
    print('==> Resuming from checkpoint..')
    checkpoint = torch.load(os.path.join(folder, 'checkpoint', 'ckpt.pth'))
    net.load_state_dict(checkpoint['net'])
    print(checkpoint['acc'], checkpoint['epoch'], sorted(checkpoint['net'].keys()))
