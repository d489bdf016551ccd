# Corpus program: minimalRL's PPO: a shared trunk with policy and value heads, transitions batched with
#   torch.tensor, GAE advantages computed in NumPy from delta.detach().numpy(), the clipped surrogate
#   (torch.exp of a log ratio, torch.clamp, torch.min) plus smooth_l1_loss on the value, Categorical sampling.
# Source: seungeunrho/minimalRL, ppo.py (as published).
# Licence: MIT (minimalRL).
# Changes: gym's CartPole-v1 replaced by the same cart-pole equations written in NumPy (no gym), with gym's old
#   reset()/step() API that ppo.py uses; 20 episodes of at most 60 steps, a print every 5 episodes.
# Randomness: np.random.seed(0) and torch.manual_seed(0) (minitorch draws PyTorch's numbers, and Categorical
#   samples through torch.multinomial as PyTorch does).
# corpus-tolerance: rtol=1e-4 atol=1e-6 -- float32 Adam steps.
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical


class CartPole:
    """CartPole's dynamics (Euler steps of the cart and pole) with gym's old 4-tuple step API."""

    def __init__(self, max_steps=60):
        self.max_steps = max_steps

    def reset(self):
        self.state = np.random.uniform(-0.05, 0.05, size=4)
        self.steps = 0
        return self.state.astype(np.float32)

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
        done = bool(x < -2.4 or x > 2.4 or theta < -0.2095 or theta > 0.2095) or self.steps >= self.max_steps
        return self.state.astype(np.float32), 1.0, done, {}

    def close(self):
        pass


class PPO(nn.Module):
    def __init__(self):
        super(PPO, self).__init__()
        self.data = []
        self.gamma = 0.98
        self.lmbda = 0.95
        self.eps = 0.1
        self.K = 2 #epoch

        self.fc1 = nn.Linear(4,256)
        self.fc_pi = nn.Linear(256,2)
        self.fc_v = nn.Linear(256,1)
        self.optimizer = optim.Adam(self.parameters(), lr=0.0005)

    def pi(self, x, softmax_dim = 0):
        x = F.relu(self.fc1(x))
        x = self.fc_pi(x)
        prob = F.softmax(x, dim=softmax_dim)
        return prob

    def v(self, x):
        x = F.relu(self.fc1(x))
        v = self.fc_v(x)
        return v

    def put_data(self, transition):
        self.data.append(transition)

    def make_batch(self):
        s_lst, a_lst, r_lst, s_prime_lst, prob_a_lst, done_lst = [], [], [], [], [], []
        for item in self.data:
            s, a, r, s_prime, prob_a, done = item

            s_lst.append(s)
            a_lst.append([a])
            r_lst.append([r])
            s_prime_lst.append(s_prime)
            prob_a_lst.append([prob_a])
            done_mask = 0 if done else 1
            done_lst.append([done_mask])

        s,a,r,s_prime,done_mask, prob_a = torch.tensor(np.array(s_lst), dtype=torch.float), torch.tensor(a_lst), \
                                          torch.tensor(r_lst), torch.tensor(np.array(s_prime_lst), dtype=torch.float), \
                                          torch.tensor(done_lst, dtype=torch.float), torch.tensor(prob_a_lst)
        self.data = []
        return s,a,r,s_prime,done_mask, prob_a

    def train(self):
        s,a,r,s_prime,done_mask, prob_a = self.make_batch()

        for i in range(self.K):
            td_target = r + self.gamma * self.v(s_prime) * done_mask
            delta = td_target - self.v(s)
            delta = delta.detach().numpy()

            advantage_lst = []
            advantage = 0
            for delta_t in delta[::-1]:
                advantage = self.gamma * self.lmbda * advantage + delta_t[0]
                advantage_lst.append([advantage])
            advantage_lst.reverse()
            advantage = torch.tensor(advantage_lst, dtype=torch.float)

            pi = self.pi(s,softmax_dim=1)
            pi_a = pi.gather(1,a)
            ratio = torch.exp(torch.log(pi_a) - torch.log(prob_a))  # a/b == exp(log(a)-log(b))

            surr1 = ratio * advantage
            surr2 = torch.clamp(ratio, 1-self.eps, 1+self.eps) * advantage
            loss = -torch.min(surr1, surr2) + F.smooth_l1_loss(td_target.detach(), self.v(s))

            self.optimizer.zero_grad()
            loss.mean().backward()
            self.optimizer.step()
        return loss.mean().item()

def main():
    env = CartPole()
    model = PPO()
    gamma = 0.99
    T = 20
    score = 0.0
    print_interval = 5

    for n_epi in range(20):
        s = env.reset()
        done = False
        while not done:
            for t in range(T):
                prob = model.pi(torch.from_numpy(s).float())
                m = Categorical(prob)
                a = m.sample().item()
                s_prime, r, done, info = env.step(a)
                model.put_data((s, a, r/100.0, s_prime, prob[a].item(), done))
                s = s_prime

                score += r
                if done:
                    break

            last_loss = model.train()

        if n_epi%print_interval==0:
            print("# of episode :{}, avg score : {:.1f}, last loss : {:.6f}".format(n_epi, score/print_interval, last_loss))
            score = 0.0

    env.close()
    print(model.pi(torch.zeros(4)))

if __name__ == '__main__':
    np.random.seed(0)
    torch.manual_seed(0)
    main()
