# Corpus program: Rainbow's early dueling DQN: Conv2d layers with padding, the deprecated init.orthogonal and
#   init.constant (no underscore) over named_parameters(), and the dueling head
#   v.expand_as(a) + a - a.mean(1, keepdim=True).expand_as(a); with a TD step on random frames.
# Source: Kaixhin/Rainbow, model.py (as stored: the first version of the repository's model file).
# Licence: MIT (Rainbow; not verified: its licence file was not available to read here).
# Changes: a driver: 4 random 1x84x84 frames, greedy actions, one double-DQN style TD loss and an Adam step.
# Randomness: torch.manual_seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-5 -- float32 convolutions.
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn import init


class DQN(nn.Module):
  def __init__(self, hidden_size, action_size):
    super().__init__()
    self.relu = nn.ReLU()
    self.conv1 = nn.Conv2d(1, 16, 8, stride=4, padding=1)
    self.conv2 = nn.Conv2d(16, 32, 4, stride=2, padding=2)
    self.fc1 = nn.Linear(3872, hidden_size)  # TODO: Noisy linear layers
    self.fc_v = nn.Linear(hidden_size, 1)
    self.fc_a = nn.Linear(hidden_size, action_size)
    # TODO: Distributional version

    # Orthogonal weight initialisation
    for name, p in self.named_parameters():
      if 'weight' in name:
        init.orthogonal(p)
      elif 'bias' in name:
        init.constant(p, 0)

  def forward(self, x):
    x = self.relu(self.conv1(x))
    x = self.relu(self.conv2(x))
    x = x.view(x.size(0), -1)
    x = self.relu(self.fc1(x))
    v = self.fc_v(x)
    a = self.fc_a(x)
    return v.expand_as(a) + a - a.mean(1, keepdim=True).expand_as(a)


torch.manual_seed(0)
online, target = DQN(32, 4), DQN(32, 4)
target.load_state_dict(online.state_dict())
w = online.fc1.weight
print(torch.allclose(w @ w.t(), torch.eye(32), atol=1e-4), online.conv1.bias.abs().sum().item())
frames = torch.rand(4, 1, 84, 84)
next_frames = torch.rand(4, 1, 84, 84)
q = online(frames)
print(q.shape, q.argmax(1).tolist(), q[0])
actions = torch.tensor([0, 1, 2, 3])
rewards = torch.tensor([1.0, 0.0, -1.0, 0.5])
with torch.no_grad():
    best = online(next_frames).argmax(1, keepdim=True)
    target_q = rewards + 0.99 * target(next_frames).gather(1, best).squeeze(1)
optimizer = torch.optim.Adam(online.parameters(), lr=1e-4, eps=1.5e-4)
loss = F.smooth_l1_loss(q.gather(1, actions.unsqueeze(1)).squeeze(1), target_q)
optimizer.zero_grad()
loss.backward()
optimizer.step()
print(loss.item(), online.fc_a.bias)
