# Corpus program: a compact U-Net: ModuleLists of down and up blocks built in loops, avg_pool2d, ConvTranspose2d
#   ('upconv') or nn.Upsample(mode='bilinear', scale_factor=2) ('upsample'), optional BatchNorm2d, centre
#   cropping of the skip connections (unpadded convolutions), torch.cat along channels.
# Source: jvanvugt/pytorch-unet, unet.py (as published), with the README's usage (Adam, a per-pixel
#   cross-entropy on the network's output).
# Licence: MIT (jvanvugt/pytorch-unet; not verified: its licence file was not available to read here).
# Changes: depth 3 and wf=3 (8 filters), 1x1x44x44 unpadded and 2x1x16x16 padded inputs, random masks, 3 Adam
#   steps per configuration.
# Randomness: torch.manual_seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-5 -- float32 convolutions.
import torch
from torch import nn
import torch.nn.functional as F


class UNet(nn.Module):
    def __init__(self, in_channels=1, n_classes=2, depth=5, wf=6, padding=False,
                 batch_norm=False, up_mode='upconv'):
        super(UNet, self).__init__()
        assert up_mode in ('upconv', 'upsample')
        self.padding = padding
        self.depth = depth
        prev_channels = in_channels
        self.down_path = nn.ModuleList()
        for i in range(depth):
            self.down_path.append(UNetConvBlock(prev_channels, 2**(wf+i),
                                                padding, batch_norm))
            prev_channels = 2**(wf+i)

        self.up_path = nn.ModuleList()
        for i in reversed(range(depth - 1)):
            self.up_path.append(UNetUpBlock(prev_channels, 2**(wf+i), up_mode,
                                            padding, batch_norm))
            prev_channels = 2**(wf+i)

        self.last = nn.Conv2d(prev_channels, n_classes, kernel_size=1)

    def forward(self, x):
        blocks = []
        for i, down in enumerate(self.down_path):
            x = down(x)
            if i != len(self.down_path)-1:
                blocks.append(x)
                x = F.avg_pool2d(x, 2)

        for i, up in enumerate(self.up_path):
            x = up(x, blocks[-i-1])

        return self.last(x)


class UNetConvBlock(nn.Module):
    def __init__(self, in_size, out_size, padding, batch_norm):
        super(UNetConvBlock, self).__init__()
        block = []

        block.append(nn.Conv2d(in_size, out_size, kernel_size=3,
                               padding=int(padding)))
        block.append(nn.ReLU())
        if batch_norm:
            block.append(nn.BatchNorm2d(out_size))

        block.append(nn.Conv2d(out_size, out_size, kernel_size=3,
                               padding=int(padding)))
        block.append(nn.ReLU())
        if batch_norm:
            block.append(nn.BatchNorm2d(out_size))

        self.block = nn.Sequential(*block)

    def forward(self, x):
        out = self.block(x)
        return out


class UNetUpBlock(nn.Module):
    def __init__(self, in_size, out_size, up_mode, padding, batch_norm):
        super(UNetUpBlock, self).__init__()
        if up_mode == 'upconv':
            self.up = nn.ConvTranspose2d(in_size, out_size, kernel_size=2,
                                         stride=2)
        elif up_mode == 'upsample':
            self.up = nn.Sequential(nn.Upsample(mode='bilinear', scale_factor=2),
                                    nn.Conv2d(in_size, out_size, kernel_size=1))

        self.conv_block = UNetConvBlock(in_size, out_size, padding, batch_norm)

    def center_crop(self, layer, target_size):
        _, _, layer_height, layer_width = layer.size()
        diff_y = (layer_height - target_size[0]) // 2
        diff_x = (layer_width - target_size[1]) // 2
        return layer[:, :, diff_y:(diff_y + target_size[0]), diff_x:(diff_x + target_size[1])]

    def forward(self, x, bridge):
        up = self.up(x)
        crop1 = self.center_crop(bridge, up.shape[2:])
        out = torch.cat([up, crop1], 1)
        out = self.conv_block(out)

        return out


torch.manual_seed(0)
for config, shape in [(dict(depth=3, wf=3), (1, 1, 44, 44)),
                      (dict(depth=3, wf=3, padding=True, batch_norm=True, up_mode='upsample'), (2, 1, 16, 16))]:
    model = UNet(n_classes=2, **config)
    optim = torch.optim.Adam(model.parameters())
    X = torch.randn(*shape)
    out = model(X)
    print(config, tuple(out.shape), sum(p.numel() for p in model.parameters()))
    Y = torch.randint(0, 2, (shape[0],) + tuple(out.shape[2:]))
    for step in range(3):
        prediction = model(X)  # [N, 2, H, W]
        loss = F.cross_entropy(prediction, Y)
        optim.zero_grad()
        loss.backward()
        optim.step()
        print(step, round(loss.item(), 5))
    model.eval()
    with torch.no_grad():
        print(model(X)[0, :, 0, :4])
