# Corpus program: yunjey's generative adversarial network and variational auto-encoder on flattened images.
# Source: yunjey/pytorch-tutorial, tutorials/03-advanced/generative_adversarial_network/main.py and
#   variational_autoencoder/main.py.
# Licence: MIT (pytorch-tutorial); re-written here following the files.
# Changes: MNIST is replaced by 32 random 8x8 images in [-1, 1] (GAN) and [0, 1] (VAE); hidden sizes 32; 2 steps each;
#   save_image is dropped.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 training.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
latent_size = 8
hidden_size = 32
image_size = 64
batch_size = 16
data = torch.rand(32, image_size) * 2 - 1
data_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data, torch.zeros(32)),
                                          batch_size=batch_size, shuffle=True)
D = nn.Sequential(
    nn.Linear(image_size, hidden_size),
    nn.LeakyReLU(0.2),
    nn.Linear(hidden_size, hidden_size),
    nn.LeakyReLU(0.2),
    nn.Linear(hidden_size, 1),
    nn.Sigmoid())
G = nn.Sequential(
    nn.Linear(latent_size, hidden_size),
    nn.ReLU(),
    nn.Linear(hidden_size, hidden_size),
    nn.ReLU(),
    nn.Linear(hidden_size, image_size),
    nn.Tanh())
D = D.to(device)
G = G.to(device)
criterion = nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=0.0002)
g_optimizer = torch.optim.Adam(G.parameters(), lr=0.0002)


def denorm(x):
    out = (x + 1) / 2
    return out.clamp(0, 1)


def reset_grad():
    d_optimizer.zero_grad()
    g_optimizer.zero_grad()


for i, (images, _) in enumerate(data_loader):
    images = images.reshape(batch_size, -1).to(device)
    real_labels = torch.ones(batch_size, 1).to(device)
    fake_labels = torch.zeros(batch_size, 1).to(device)
    outputs = D(images)
    d_loss_real = criterion(outputs, real_labels)
    real_score = outputs
    z = torch.randn(batch_size, latent_size).to(device)
    fake_images = G(z)
    outputs = D(fake_images)
    d_loss_fake = criterion(outputs, fake_labels)
    fake_score = outputs
    d_loss = d_loss_real + d_loss_fake
    reset_grad()
    d_loss.backward()
    d_optimizer.step()
    z = torch.randn(batch_size, latent_size).to(device)
    fake_images = G(z)
    outputs = D(fake_images)
    g_loss = criterion(outputs, real_labels)
    reset_grad()
    g_loss.backward()
    g_optimizer.step()
    print(f'Step [{i+1}], d_loss: {d_loss.item():.4f}, g_loss: {g_loss.item():.4f}, D(x): {real_score.mean().item():.2f}, D(G(z)): {fake_score.mean().item():.2f}'
          )
print(denorm(fake_images)[0, :4])


class VAE(nn.Module):
    def __init__(self, image_size=784, h_dim=400, z_dim=20):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(image_size, h_dim)
        self.fc2 = nn.Linear(h_dim, z_dim)
        self.fc3 = nn.Linear(h_dim, z_dim)
        self.fc4 = nn.Linear(z_dim, h_dim)
        self.fc5 = nn.Linear(h_dim, image_size)

    def encode(self, x):
        h = F.relu(self.fc1(x))
        return self.fc2(h), self.fc3(h)

    def reparameterize(self, mu, log_var):
        std = torch.exp(log_var/2)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h = F.relu(self.fc4(z))
        return F.sigmoid(self.fc5(h))

    def forward(self, x):
        mu, log_var = self.encode(x)
        z = self.reparameterize(mu, log_var)
        x_reconst = self.decode(z)
        return x_reconst, mu, log_var


model = VAE(image_size, hidden_size, latent_size).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for i, (x, _) in enumerate(data_loader):
    x = denorm(x).to(device).view(-1, image_size)
    x_reconst, mu, log_var = model(x)
    reconst_loss = F.binary_cross_entropy(x_reconst, x, size_average=False)
    kl_div = - 0.5 * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())
    loss = reconst_loss + kl_div
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print (f"Step [{i+1}], Reconst Loss: {reconst_loss.item():.4f}, KL Div: {kl_div.item():.4f}")
with torch.no_grad():
    z = torch.randn(batch_size, latent_size).to(device)
    out = model.decode(z).view(-1, 1, 8, 8)
    print(out.shape, torch.cat([x.view(-1, 1, 8, 8), out], dim=3).shape)
