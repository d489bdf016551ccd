# Corpus program: minimalRL's REINFORCE: a policy network with a softmax over actions, Categorical sampling,
#   prob[a] stored per step, returns accumulated backwards and -torch.log(prob) * R losses backpropagated one
#   step at a time before a single optimizer step per episode.
# Source: seungeunrho/minimalRL, REINFORCE.py (as published).
# Licence: MIT (minimalRL).
# Changes: gym's CartPole-v1 replaced by the same cart-pole equations written in NumPy (no gym, gym's new
#   reset()/step() API as REINFORCE.py uses it); 30 episodes of at most 50 steps, a print every 10 episodes.
# Randomness: np.random.seed(0) and torch.manual_seed(0) (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-4 atol=1e-6 -- float32 Adam steps.
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class CartPole:
    """CartPole-v1's dynamics (Euler steps of the cart and pole), without gym."""

    def __init__(self, max_steps=50):
        self.max_steps = max_steps

    def reset(self):
        self.state = np.random.uniform(-0.05, 0.05, size=4)
        self.steps = 0
        return self.state.astype(np.float32), {}

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        costheta, sintheta = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sintheta) / 1.1
        thetaacc = (9.8 * sintheta - costheta * temp) / (0.5 * (4.0 / 3.0 - 0.1 * costheta ** 2 / 1.1))
        xacc = temp - 0.05 * thetaacc * costheta / 1.1
        x, x_dot = x + 0.02 * x_dot, x_dot + 0.02 * xacc
        theta, theta_dot = theta + 0.02 * theta_dot, theta_dot + 0.02 * thetaacc
        self.state = np.array([x, x_dot, theta, theta_dot])
        self.steps += 1
        done = bool(x < -2.4 or x > 2.4 or theta < -0.2095 or theta > 0.2095)
        return self.state.astype(np.float32), 1.0, done, self.steps >= self.max_steps, {}

    def close(self):
        pass


#Hyperparameters
learning_rate = 0.0002
gamma         = 0.98

class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.data = []

        self.fc1 = nn.Linear(4, 128)
        self.fc2 = nn.Linear(128, 2)
        self.optimizer = optim.Adam(self.parameters(), lr=learning_rate)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.softmax(self.fc2(x), dim=0)
        return x

    def put_data(self, item):
        self.data.append(item)

    def train_net(self):
        R = 0
        self.optimizer.zero_grad()
        for r, prob in self.data[::-1]:
            R = r + gamma * R
            loss = -torch.log(prob) * R
            loss.backward()
        self.optimizer.step()
        self.data = []

def main():
    env = CartPole()
    pi = Policy()
    score = 0.0
    print_interval = 10

    for n_epi in range(30):
        s, _ = env.reset()
        done = False

        while not done: # CartPole-v1 forced to terminates at 500 step.
            prob = pi(torch.from_numpy(s).float())
            m = Categorical(prob)
            a = m.sample()
            s_prime, r, done, truncated, info = env.step(a.item())
            pi.put_data((r,prob[a]))
            s = s_prime
            score += r
            done = done or truncated

        pi.train_net()

        if n_epi%print_interval==0 and n_epi!=0:
            print("# of episode :{}, avg score : {}".format(n_epi, score/print_interval))
            score = 0.0
    env.close()
    print(pi(torch.zeros(4)).tolist(), pi.fc2.bias.tolist())

if __name__ == '__main__':
    np.random.seed(0)
    torch.manual_seed(0)
    main()
