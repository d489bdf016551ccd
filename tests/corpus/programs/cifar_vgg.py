# Corpus program: pytorch-cifar's VGG (models/vgg.py) with its own test() and one training step.
# Source: kuangliu/pytorch-cifar, models/vgg.py (https://github.com/kuangliu/pytorch-cifar).
# Licence: MIT (pytorch-cifar); re-written here following the file.
# Changes: the VGG11 configuration only, its widths divided by 8 (the corpus must stay fast); one batch
#   of 2 random images and one SGD step of main.py's
#   optimizer.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- an 8-layer float32 CNN with batch statistics of 2 images.
import torch
import torch.nn as nn

cfg = {
    'VGG11': [8, 'M', 16, 'M', 32, 32, 'M', 64, 64, 'M', 64, 64, 'M'],
    'VGG13': [64, 64, 'M', 128, 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M'],
    'VGG16': [64, 64, 'M', 128, 128, 'M', 256, 256, 256, 'M', 512, 512, 512, 'M', 512, 512, 512, 'M'],
    'VGG19': [64, 64, 'M', 128, 128, 'M', 256, 256, 256, 256, 'M', 512, 512, 512, 512, 'M', 512, 512, 512, 512, 'M'],
}


class VGG(nn.Module):
    def __init__(self, vgg_name):
        super(VGG, self).__init__()
        self.features = self._make_layers(cfg[vgg_name])
        self.classifier = nn.Linear(64, 10)

    def forward(self, x):
        out = self.features(x)
        out = out.view(out.size(0), -1)
        out = self.classifier(out)
        return out

    def _make_layers(self, cfg):
        layers = []
        in_channels = 3
        for x in cfg:
            if x == 'M':
                layers += [nn.MaxPool2d(kernel_size=2, stride=2)]
            else:
                layers += [nn.Conv2d(in_channels, x, kernel_size=3, padding=1),
                           nn.BatchNorm2d(x),
                           nn.ReLU(inplace=True)]
                in_channels = x
        layers += [nn.AvgPool2d(kernel_size=1, stride=1)]
        return nn.Sequential(*layers)


def test():
    net = VGG('VGG11')
    x = torch.randn(2,3,32,32)
    y = net(x)
    print(y.size())
    return net, x


torch.manual_seed(0)
net, x = test()
print(net.features[:4])
print(sum(p.numel() for p in net.parameters()))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
loss = nn.CrossEntropyLoss()(net(x), torch.tensor([3, 7]))
loss.backward()
optimizer.step()
print('%.4f' % loss.item())
net.eval()
with torch.no_grad():
    print(net(x)[:, :4])
print(net.features[1].running_mean[:4], net.features[1].num_batches_tracked)
