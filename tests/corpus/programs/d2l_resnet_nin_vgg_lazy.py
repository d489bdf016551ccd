# Corpus program: d2l's modern CNNs with lazy layers (current edition): the Residual block with LazyConv2d and
#   LazyBatchNorm2d, ResNet's b1 and block stages built by add_module, NiN blocks with AdaptiveAvgPool2d, and VGG
#   blocks, each run on a dry batch, initialised with init_cnn (xavier_uniform_) and summarised layer by layer.
# Source: d2l-ai/d2l-en, chapter_convolutional-modern/resnet.md, nin.md and vgg.md (PyTorch tabs: Residual, ResNet.b1,
#   ResNet.block, ResNet18, nin_block, NiN, vgg_block, VGG, layer_summary).
# Licence: MIT-0 (d2l-en's sample code, LICENSE-SAMPLECODE); re-written here following the sections.
# Changes: a ResNet with one residual block per stage and widths (64, 32); inputs of 1x32x32 instead of 1x96x96 (the
#   corpus must stay fast); one SGD step.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 CNNs with batch statistics of 2 images.
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


def init_cnn(module):  #@save
    """Initialize weights for CNNs."""
    if type(module) == nn.Linear or type(module) == nn.Conv2d:
        nn.init.xavier_uniform_(module.weight)


class Residual(nn.Module):  #@save
    """The Residual block of ResNet models."""
    def __init__(self, num_channels, use_1x1conv=False, strides=1):
        super().__init__()
        self.conv1 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1,
                                   stride=strides)
        self.conv2 = nn.LazyConv2d(num_channels, kernel_size=3, padding=1)
        if use_1x1conv:
            self.conv3 = nn.LazyConv2d(num_channels, kernel_size=1,
                                       stride=strides)
        else:
            self.conv3 = None
        self.bn1 = nn.LazyBatchNorm2d()
        self.bn2 = nn.LazyBatchNorm2d()

    def forward(self, X):
        Y = F.relu(self.bn1(self.conv1(X)))
        Y = self.bn2(self.conv2(Y))
        if self.conv3:
            X = self.conv3(X)
        Y += X
        return F.relu(Y)


blk = Residual(3)
X = torch.randn(4, 3, 6, 6)
print(blk(X).shape)
blk = Residual(6, use_1x1conv=True, strides=2)
print(blk(X).shape)


class ResNet(nn.Module):
    def b1(self):
        return nn.Sequential(
            nn.LazyConv2d(64, kernel_size=7, stride=2, padding=3),
            nn.LazyBatchNorm2d(), nn.ReLU(),
            nn.MaxPool2d(kernel_size=3, stride=2, padding=1))

    def block(self, num_residuals, num_channels, first_block=False):
        blk = []
        for i in range(num_residuals):
            if i == 0 and not first_block:
                blk.append(Residual(num_channels, use_1x1conv=True, strides=2))
            else:
                blk.append(Residual(num_channels))
        return nn.Sequential(*blk)

    def __init__(self, arch, lr=0.1, num_classes=10):
        super(ResNet, self).__init__()
        self.net = nn.Sequential(self.b1())
        for i, b in enumerate(arch):
            self.net.add_module(f'b{i+2}', self.block(*b, first_block=(i==0)))
        self.net.add_module('last', nn.Sequential(
            nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(),
            nn.LazyLinear(num_classes)))

    def forward(self, X):
        return self.net(X)

    def layer_summary(self, X_shape):
        X = torch.randn(*X_shape)
        for layer in self.net:
            X = layer(X)
            print(layer.__class__.__name__, 'output shape:\t', X.shape)


def nin_block(out_channels, kernel_size, strides, padding):
    return nn.Sequential(
        nn.LazyConv2d(out_channels, kernel_size, strides, padding), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU(),
        nn.LazyConv2d(out_channels, kernel_size=1), nn.ReLU())


def vgg_block(num_convs, out_channels):
    layers = []
    for _ in range(num_convs):
        layers.append(nn.LazyConv2d(out_channels, kernel_size=3, padding=1))
        layers.append(nn.ReLU())
    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
    return nn.Sequential(*layers)


model = ResNet(((1, 64), (1, 32)))
model.layer_summary((1, 1, 32, 32))
X = torch.randn(2, 1, 32, 32)
model(X)
model.apply(init_cnn)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loss = F.cross_entropy(model(X), torch.tensor([3, 7]))
loss.backward()
optimizer.step()
print(round(loss.item(), 4), model.net.b2[0].bn1.running_mean[:3])
nin = nn.Sequential(
    nin_block(8, kernel_size=5, strides=2, padding=0),
    nn.MaxPool2d(3, stride=2),
    nn.Dropout(0.5),
    nin_block(10, kernel_size=3, strides=1, padding=1),
    nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten())
nin.eval()
print(nin(X).shape, [type(m).__name__ for m in nin[0]])
vgg = nn.Sequential(vgg_block(1, 8), vgg_block(2, 16), nn.Flatten(), nn.LazyLinear(10))
print(vgg(X).shape, vgg[3].in_features, vgg[0][0].weight.shape)
