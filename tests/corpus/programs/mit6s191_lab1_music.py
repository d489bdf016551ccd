# Corpus program: MIT 6.S191 lab 1 part 2: the music-generation LSTM (vectorize_string, get_batch, LSTMModel with
#   embedding, LSTM and linear, compute_loss, the training step and generate_text with torch.multinomial).
# Source: aamini/introtodeeplearning, lab1/PT_Part2_Music_Generation.ipynb (the PyTorch edition of the lab).
# Licence: MIT (introtodeeplearning); re-written here following the notebook's cells.
# Changes: the Irish-folk ABC songs are replaced by two short made-up ABC tunes; embedding 16, hidden 32, sequence 10,
#   batch 4; 5 steps; no Comet logging.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers); get_batch draws with NumPy under np.random.seed.
# corpus-tolerance: rtol=1e-3 -- float32 LSTM training.
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)
songs = ["X:1\nT:Reel\nM:4/4\nK:D\n|:A2FA DAFA|B2GB dBGB|A2FA DAFA|BAGF E2D2:|",
         "X:2\nT:Jig\nM:6/8\nK:G\n|:GAB cBA|GBd gdB|cec BdB|AGF G3:|"]
songs_joined = "\n\n".join(songs)
vocab = sorted(set(songs_joined))
print("There are", len(vocab), "unique characters in the dataset")
char2idx = {u: i for i, u in enumerate(vocab)}
idx2char = np.array(vocab)


def vectorize_string(string):
    vectorized_output = np.array([char2idx[char] for char in string])
    return vectorized_output


vectorized_songs = vectorize_string(songs_joined)
print(f'{repr(songs_joined[:10])} ---- characters mapped to int ----> {vectorized_songs[:10]}')


def get_batch(vectorized_songs, seq_length, batch_size):
    # the length of the vectorized songs string
    n = vectorized_songs.shape[0] - 1
    # randomly choose the starting indices for the examples in the training batch
    idx = np.random.choice(n - seq_length, batch_size)
    input_batch = [vectorized_songs[i: i + seq_length] for i in idx]
    output_batch = [vectorized_songs[i + 1: i + seq_length + 1] for i in idx]
    # Convert the input and output batches to tensors
    x_batch = torch.tensor(input_batch, dtype=torch.long)
    y_batch = torch.tensor(output_batch, dtype=torch.long)
    return x_batch, y_batch


class LSTMModel(nn.Module):
    def __init__(self, vocab_size, embedding_dim, hidden_size):
        super(LSTMModel, self).__init__()
        self.hidden_size = hidden_size
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, vocab_size)

    def init_hidden(self, batch_size, device):
        # Initialize hidden state and cell state with zeros
        return (torch.zeros(1, batch_size, self.hidden_size).to(device),
                torch.zeros(1, batch_size, self.hidden_size).to(device))

    def forward(self, x, state=None, return_state=False):
        x = self.embedding(x)
        if state is None:
            state = self.init_hidden(x.size(0), x.device)
        out, state = self.lstm(x, state)
        out = self.fc(out)
        return out if not return_state else (out, state)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
params = dict(num_training_iterations=5, batch_size=4, seq_length=10, learning_rate=5e-3, embedding_dim=16,
              hidden_size=32)
model = LSTMModel(len(vocab), params["embedding_dim"], params["hidden_size"])
model.to(device)
print(model)
x, y = get_batch(vectorized_songs, seq_length=10, batch_size=4)
x = x.to(device)
y = y.to(device)
pred = model(x)
print("Input shape:      ", x.shape, " # (batch_size, sequence_length)")
print("Prediction shape: ", pred.shape, "# (batch_size, sequence_length, vocab_size)")
sampled_indices = torch.multinomial(torch.softmax(pred[0], dim=-1), num_samples=1)
sampled_indices = sampled_indices.squeeze(-1).cpu().numpy()
print(repr("".join(idx2char[sampled_indices])))
cross_entropy = nn.CrossEntropyLoss() # instantiates the function


def compute_loss(labels, logits):
    batched_labels = labels.view(-1)
    batched_logits = logits.view(-1, logits.size(-1))
    loss = cross_entropy(batched_logits, batched_labels)
    return loss


example_batch_loss = compute_loss(y, pred)
print(f"scalar_loss:      {example_batch_loss.mean().item()}")
optimizer = torch.optim.Adam(model.parameters(), lr=params["learning_rate"])


def train_step(x, y):
    # Set the model's mode to train
    model.train()
    # Zero gradients for every step
    optimizer.zero_grad()
    # Forward pass
    y_hat = model(x)
    # Compute the loss
    loss = compute_loss(y, y_hat)
    # Backward pass
    loss.backward()
    optimizer.step()
    return loss


for iter in range(params["num_training_iterations"]):
    x_batch, y_batch = get_batch(vectorized_songs, params["seq_length"], params["batch_size"])
    x_batch = torch.tensor(x_batch, dtype=torch.long).to(device)
    y_batch = torch.tensor(y_batch, dtype=torch.long).to(device)
    loss = train_step(x_batch, y_batch)
    print(iter, round(loss.item(), 4))


def generate_text(model, start_string, generation_length=1000):
    input_idx = [char2idx[s] for s in start_string]
    input_idx = torch.tensor([input_idx], dtype=torch.long).to(device)
    state = model.init_hidden(input_idx.size(0), device)
    text_generated = []
    for i in range(generation_length):
        predictions, state = model(input_idx, state, return_state=True)
        predictions = predictions.squeeze(0)
        input_idx = torch.multinomial(torch.softmax(predictions, dim=-1), num_samples=1)
        text_generated.append(idx2char[input_idx].item())
    return (start_string + ''.join(text_generated))


model.eval()
with torch.no_grad():
    print(repr(generate_text(model, start_string="X", generation_length=20)))
