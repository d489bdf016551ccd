# Corpus program: REINFORCE on a cart-pole, as in PyTorch's examples (reinforcement_learning/reinforce.py).
# Source: pytorch/examples, reinforcement_learning/reinforce.py (Policy with dropout and softmax, select_action
#   with torch.distributions.Categorical, saved log-probabilities, finish_episode with discounted, normalised
#   returns and policy_loss = -log_prob * R).
# Licence: BSD-3-Clause (pytorch/examples); re-written here following the example.
# Changes: gym's CartPole-v1 is replaced by the same physics written out with NumPy (Euler steps of 0.02 s, the
#   same thresholds); 8 episodes of at most 60 steps; no rendering or argparse.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers: dropout masks and Categorical samples);
#   the cart-pole's start state from NumPy.
# corpus-tolerance: rtol=1e-4 -- float32 policy-gradient updates.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

torch.manual_seed(543)
rng = np.random.default_rng(543)


class CartPole:
    """The cart-pole of gym's CartPole-v1: push left or right; the episode ends when the pole falls."""

    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02

    def reset(self):
        self.state = rng.uniform(-0.05, 0.05, size=4)
        return self.state.astype(np.float32)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if action == 1 else -self.force_mag
        total_mass = self.masscart + self.masspole
        polemass_length = self.masspole * self.length
        temp = (force + polemass_length * theta_dot**2 * np.sin(theta)) / total_mass
        thetaacc = (self.gravity * np.sin(theta) - np.cos(theta) * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * np.cos(theta) ** 2 / total_mass))
        xacc = temp - polemass_length * thetaacc * np.cos(theta) / total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * xacc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * thetaacc
        self.state = np.array([x, x_dot, theta, theta_dot])
        done = bool(x < -2.4 or x > 2.4 or theta < -12 * 2 * np.pi / 360 or theta > 12 * 2 * np.pi / 360)
        return self.state.astype(np.float32), 1.0, done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()
gamma = 0.99


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


env = CartPole()
running_reward = 10
for i_episode in range(1, 9):
    state, ep_reward = env.reset(), 0
    for t in range(1, 60):
        action = select_action(state)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    print(f"Episode {i_episode}\tLast reward: {ep_reward:.2f}\tAverage reward: {running_reward:.2f}\tloss {loss:.4f}")

probs = policy.eval()(torch.ones(1, 4))
print("policy at (1, 1, 1, 1):", probs, Categorical(probs).entropy())
