# Corpus program: SimCLR's training step: the InfoNCE (NT-Xent) loss built from a label matrix
#   (labels.unsqueeze(0) == labels.unsqueeze(1)), F.normalize, features @ features.T, boolean-mask selection of
#   the off-diagonal entries (labels[~mask].view(...)), positives and negatives concatenated as logits;
#   torch.cuda.amp's GradScaler and autocast with enabled=False on a CPU, the top-k accuracy helper, a ResNet-style
#   base encoder whose fc is replaced by an MLP projection head (nn.Sequential(nn.Linear, nn.ReLU(), fc)),
#   CosineAnnealingLR and its get_last_lr().
# Source: sthalles/SimCLR, simclr.py (info_nce_loss, train), utils.py (accuracy, save_checkpoint) and
#   models/resnet_simclr.py (ResNetSimCLR's head), as published.
# Licence: MIT (sthalles/SimCLR; not verified: its licence file was not available to read here).
# Changes: torchvision's resnet18 replaced by a two-convolution encoder with the same `fc` attribute; two random
#   "views" (a flip and noise of random 3x16x16 images) instead of STL10's augmentations; batch size 8, 4
#   iterations, no SummaryWriter/tqdm/logging (the scalars are printed).
# Randomness: torch.manual_seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-5 -- float32 convolutions.
import os
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast

torch.manual_seed(0)


def save_checkpoint(state, is_best, filename='checkpoint.pth.tar'):
    torch.save(state, filename)


def accuracy(output, target, topk=(1,)):
    """Computes the accuracy over the k top predictions for the specified values of k"""
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)

        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))

        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


class SmallEncoder(nn.Module):
    """Stands in for torchvision.models.resnet18(pretrained=False, num_classes=out_dim)."""

    def __init__(self, num_classes):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(16, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class ResNetSimCLR(nn.Module):

    def __init__(self, base_model, out_dim):
        super(ResNetSimCLR, self).__init__()
        self.resnet_dict = {"resnet18": SmallEncoder(num_classes=out_dim)}

        self.backbone = self._get_basemodel(base_model)
        dim_mlp = self.backbone.fc.in_features

        # add mlp projection head
        self.backbone.fc = nn.Sequential(nn.Linear(dim_mlp, dim_mlp), nn.ReLU(), self.backbone.fc)

    def _get_basemodel(self, model_name):
        model = self.resnet_dict[model_name]
        return model

    def forward(self, x):
        return self.backbone(x)


class SimCLR(object):

    def __init__(self, *args, **kwargs):
        self.args = kwargs['args']
        self.model = kwargs['model'].to(self.args.device)
        self.optimizer = kwargs['optimizer']
        self.scheduler = kwargs['scheduler']
        self.criterion = torch.nn.CrossEntropyLoss().to(self.args.device)

    def info_nce_loss(self, features):

        labels = torch.cat([torch.arange(self.args.batch_size) for i in range(self.args.n_views)], dim=0)
        labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
        labels = labels.to(self.args.device)

        features = F.normalize(features, dim=1)

        similarity_matrix = torch.matmul(features, features.T)

        # discard the main diagonal from both: labels and similarities matrix
        mask = torch.eye(labels.shape[0], dtype=torch.bool).to(self.args.device)
        labels = labels[~mask].view(labels.shape[0], -1)
        similarity_matrix = similarity_matrix[~mask].view(similarity_matrix.shape[0], -1)

        # select and combine multiple positives
        positives = similarity_matrix[labels.bool()].view(labels.shape[0], -1)

        # select only the negatives the negatives
        negatives = similarity_matrix[~labels.bool()].view(similarity_matrix.shape[0], -1)

        logits = torch.cat([positives, negatives], dim=1)
        labels = torch.zeros(logits.shape[0], dtype=torch.long).to(self.args.device)

        logits = logits / self.args.temperature
        return logits, labels

    def train(self, train_loader):

        scaler = GradScaler(enabled=self.args.fp16_precision)

        n_iter = 0
        print(f"Start SimCLR training for {self.args.epochs} epochs.")

        for epoch_counter in range(self.args.epochs):
            for images, _ in train_loader:
                images = torch.cat(images, dim=0)

                images = images.to(self.args.device)

                with autocast(enabled=self.args.fp16_precision):
                    features = self.model(images)
                    logits, labels = self.info_nce_loss(features)
                    loss = self.criterion(logits, labels)

                self.optimizer.zero_grad()

                scaler.scale(loss).backward()

                scaler.step(self.optimizer)
                scaler.update()

                if n_iter % self.args.log_every_n_steps == 0:
                    top1, top5 = accuracy(logits, labels, topk=(1, 5))
                    print('loss', round(loss.item(), 5), 'acc/top1', top1[0].item(), 'acc/top5', top5[0].item(),
                          'learning_rate', self.scheduler.get_last_lr()[0], n_iter)

                n_iter += 1

            # warmup for the first 10 epochs
            if epoch_counter >= 10:
                self.scheduler.step()
            print(f"Epoch: {epoch_counter}\tLoss: {loss}\tTop1 accuracy: {top1[0]}")

        print("Training has finished.")
        # save model checkpoints
        checkpoint_name = 'checkpoint_{:04d}.pth.tar'.format(self.args.epochs)
        save_checkpoint({
            'epoch': self.args.epochs,
            'arch': self.args.arch,
            'state_dict': self.model.state_dict(),
            'optimizer': self.optimizer.state_dict(),
        }, is_best=False, filename=checkpoint_name)
        checkpoint = torch.load(checkpoint_name, weights_only=False)
        print(checkpoint['epoch'], checkpoint['arch'], list(checkpoint['state_dict'])[:4],
              checkpoint['optimizer']['param_groups'][0]['lr'])
        os.remove(checkpoint_name)


args = SimpleNamespace(device=torch.device('cpu'), batch_size=8, n_views=2, temperature=0.07, epochs=2,
                       fp16_precision=False, log_every_n_steps=2, arch='resnet18', lr=0.0003, weight_decay=1e-4)
base = torch.rand(16, 3, 16, 16)
train_loader = []
for start in range(0, 16, args.batch_size):
    x = base[start:start + args.batch_size]
    views = [x.flip(3), (x + 0.1 * torch.randn_like(x)).clamp(0, 1)]
    train_loader.append((views, torch.zeros(args.batch_size)))

model = ResNetSimCLR(base_model=args.arch, out_dim=32)
print(model.backbone.fc)
optimizer = torch.optim.Adam(model.parameters(), args.lr, weight_decay=args.weight_decay)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=len(train_loader), eta_min=0, last_epoch=-1)
simclr = SimCLR(model=model, optimizer=optimizer, scheduler=scheduler, args=args)
simclr.train(train_loader)
logits, labels = simclr.info_nce_loss(torch.randn(16, 4))
print(logits.shape, labels.tolist(), logits[0])
