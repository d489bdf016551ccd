# Corpus program: sentiment analysis with a 2-layer bidirectional LSTM: pad_sequence in a collate_fn,
#   pack_padded_sequence(enforce_sorted=False), pad_packed_sequence, Embedding(padding_idx), orthogonal_ init of
#   the LSTM weights by name, pretrained vectors assigned to .weight.data, torch.save of the best state_dict and
#   torch.load back, predictions with softmax.
# Source: bentrevett/pytorch-sentiment-analysis, "2 - Recurrent Neural Networks.ipynb"
# Licence: MIT (pytorch-sentiment-analysis); the notebook's code cells in order, with the changes below.
# Changes: IMDB (the datasets library), torchtext's tokenizer and vocabulary and GloVe vectors are replaced by
#   160 short templated reviews, a basic_english-like tokenizer, a small Vocab class with the same methods and random
#   vectors, all made with NumPy; batches of 16, embeddings and hidden size 32, 2 epochs; the matplotlib cells are left out; a cell's last expression
#   (shown by the notebook) is printed.
# Randomness: the notebook's np.random.seed(1234) and torch.manual_seed(1234); the reviews from NumPy.
# corpus-tolerance: rtol=1e-3 -- float32 LSTM training; losses printed to 3 decimals.
import collections

import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
import tqdm

seed = 1234

np.random.seed(seed)
torch.manual_seed(seed)
torch.cuda.manual_seed(seed)
torch.backends.cudnn.deterministic = True

# --- IMDB, torchtext's tokenizer and vocabulary, made on the spot (no download) ---
def tokenizer(text):
    # torchtext's "basic_english": lower case, punctuation split off
    text = text.lower()
    for mark in ["'", '"', ".", ",", "(", ")", "!", "?", ";", ":"]:
        text = text.replace(mark, " " + mark + " ")
    return text.split()


class Vocab:
    def __init__(self, itos):
        self.itos = list(itos)
        self.stoi = {token: index for index, token in enumerate(self.itos)}
        self.default_index = None

    def __len__(self):
        return len(self.itos)

    def __getitem__(self, token):
        return self.stoi.get(token, self.default_index)

    def set_default_index(self, index):
        self.default_index = index

    def lookup_indices(self, tokens):
        return [self[token] for token in tokens]

    def get_itos(self):
        return self.itos


class Split(list):
    def unique(self, column):
        return sorted({int(example[column]) for example in self})


good = ["great", "wonderful", "moving", "brilliant", "fun", "superb"]
bad = ["terrible", "boring", "awful", "dull", "weak", "bad"]
filler = ["this", "film", "movie", "is", "was", "the", "plot", "acting", "and", "a", "story", "not", "it's", "really"]
rng = np.random.default_rng(0)


def review(label):
    words = list(rng.choice(filler, size=rng.integers(4, 14)))
    for _ in range(rng.integers(1, 3)):
        words.insert(rng.integers(len(words) + 1), rng.choice(good if label else bad))
    return " ".join(words) + rng.choice([".", "!", "!!"])


max_length = 256
special_tokens = ["<unk>", "<pad>"]
texts = [(review(label), label) for label in rng.integers(0, 2, size=160)]
vocab = Vocab(special_tokens + sorted({token for text, _ in texts[:96] for token in tokenizer(text)}))
unk_index = vocab["<unk>"]
pad_index = vocab["<pad>"]
vocab.set_default_index(unk_index)


def example(text, label):
    tokens = tokenizer(text)[:max_length]
    ids = vocab.lookup_indices(tokens)
    return {"ids": torch.tensor(ids), "label": torch.tensor(label), "length": torch.tensor(len(tokens))}


train_data = Split(example(text, label) for text, label in texts[:96])
valid_data = Split(example(text, label) for text, label in texts[96:128])
test_data = Split(example(text, label) for text, label in texts[128:])
print(train_data[0])


def get_collate_fn(pad_index):
    def collate_fn(batch):
        batch_ids = [i["ids"] for i in batch]
        batch_ids = nn.utils.rnn.pad_sequence(
            batch_ids, padding_value=pad_index, batch_first=True
        )
        batch_length = [i["length"] for i in batch]
        batch_length = torch.stack(batch_length)
        batch_label = [i["label"] for i in batch]
        batch_label = torch.stack(batch_label)
        batch = {"ids": batch_ids, "length": batch_length, "label": batch_label}
        return batch

    return collate_fn

def get_data_loader(dataset, batch_size, pad_index, shuffle=False):
    collate_fn = get_collate_fn(pad_index)
    data_loader = torch.utils.data.DataLoader(
        dataset=dataset,
        batch_size=batch_size,
        collate_fn=collate_fn,
        shuffle=shuffle,
    )
    return data_loader

batch_size = 16

train_data_loader = get_data_loader(train_data, batch_size, pad_index, shuffle=True)
valid_data_loader = get_data_loader(valid_data, batch_size, pad_index)
test_data_loader = get_data_loader(test_data, batch_size, pad_index)

class LSTM(nn.Module):
    def __init__(
        self,
        vocab_size,
        embedding_dim,
        hidden_dim,
        output_dim,
        n_layers,
        bidirectional,
        dropout_rate,
        pad_index,
    ):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
        self.lstm = nn.LSTM(
            embedding_dim,
            hidden_dim,
            n_layers,
            bidirectional=bidirectional,
            dropout=dropout_rate,
            batch_first=True,
        )
        self.fc = nn.Linear(hidden_dim * 2 if bidirectional else hidden_dim, output_dim)
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, ids, length):
        # ids = [batch size, seq len]
        # length = [batch size]
        embedded = self.dropout(self.embedding(ids))
        # embedded = [batch size, seq len, embedding dim]
        packed_embedded = nn.utils.rnn.pack_padded_sequence(
            embedded, length, batch_first=True, enforce_sorted=False
        )
        packed_output, (hidden, cell) = self.lstm(packed_embedded)
        # hidden = [n layers * n directions, batch size, hidden dim]
        # cell = [n layers * n directions, batch size, hidden dim]
        output, output_length = nn.utils.rnn.pad_packed_sequence(packed_output)
        # output = [batch size, seq len, hidden dim * n directions]
        if self.lstm.bidirectional:
            hidden = self.dropout(torch.cat([hidden[-1], hidden[-2]], dim=-1))
            # hidden = [batch size, hidden dim * 2]
        else:
            hidden = self.dropout(hidden[-1])
            # hidden = [batch size, hidden dim]
        prediction = self.fc(hidden)
        # prediction = [batch size, output dim]
        return prediction

vocab_size = len(vocab)
embedding_dim = 32
hidden_dim = 32
output_dim = len(train_data.unique("label"))
n_layers = 2
bidirectional = True
dropout_rate = 0.5

model = LSTM(
    vocab_size,
    embedding_dim,
    hidden_dim,
    output_dim,
    n_layers,
    bidirectional,
    dropout_rate,
    pad_index,
)

def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


print(f"The model has {count_parameters(model):,} trainable parameters")

def initialize_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_normal_(m.weight)
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.LSTM):
        for name, param in m.named_parameters():
            if "bias" in name:
                nn.init.zeros_(param)
            elif "weight" in name:
                nn.init.orthogonal_(param)

model.apply(initialize_weights)

# GloVe vectors stand-in: random vectors from NumPy, one per word of the vocabulary.
pretrained_embedding = torch.from_numpy(
    np.random.default_rng(1).normal(size=(len(vocab.get_itos()), embedding_dim)).astype(np.float32))


model.embedding.weight.data = pretrained_embedding

lr = 5e-4

optimizer = optim.Adam(model.parameters(), lr=lr)

criterion = nn.CrossEntropyLoss()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

print(device)

model = model.to(device)
criterion = criterion.to(device)

def train(dataloader, model, criterion, optimizer, device):
    model.train()
    epoch_losses = []
    epoch_accs = []
    for batch in tqdm.tqdm(dataloader, desc="training..."):
        ids = batch["ids"].to(device)
        length = batch["length"]
        label = batch["label"].to(device)
        prediction = model(ids, length)
        loss = criterion(prediction, label)
        accuracy = get_accuracy(prediction, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_losses.append(loss.item())
        epoch_accs.append(accuracy.item())
    return np.mean(epoch_losses), np.mean(epoch_accs)

def evaluate(dataloader, model, criterion, device):
    model.eval()
    epoch_losses = []
    epoch_accs = []
    with torch.no_grad():
        for batch in tqdm.tqdm(dataloader, desc="evaluating..."):
            ids = batch["ids"].to(device)
            length = batch["length"]
            label = batch["label"].to(device)
            prediction = model(ids, length)
            loss = criterion(prediction, label)
            accuracy = get_accuracy(prediction, label)
            epoch_losses.append(loss.item())
            epoch_accs.append(accuracy.item())
    return np.mean(epoch_losses), np.mean(epoch_accs)

def get_accuracy(prediction, label):
    batch_size, _ = prediction.shape
    predicted_classes = prediction.argmax(dim=-1)
    correct_predictions = predicted_classes.eq(label).sum()
    accuracy = correct_predictions / batch_size
    return accuracy

n_epochs = 2
best_valid_loss = float("inf")

metrics = collections.defaultdict(list)

for epoch in range(n_epochs):
    train_loss, train_acc = train(
        train_data_loader, model, criterion, optimizer, device
    )
    valid_loss, valid_acc = evaluate(valid_data_loader, model, criterion, device)
    metrics["train_losses"].append(train_loss)
    metrics["train_accs"].append(train_acc)
    metrics["valid_losses"].append(valid_loss)
    metrics["valid_accs"].append(valid_acc)
    if valid_loss < best_valid_loss:
        best_valid_loss = valid_loss
        torch.save(model.state_dict(), "lstm.pt")
    print(f"epoch: {epoch}")
    print(f"train_loss: {train_loss:.3f}, train_acc: {train_acc:.3f}")
    print(f"valid_loss: {valid_loss:.3f}, valid_acc: {valid_acc:.3f}")

model.load_state_dict(torch.load("lstm.pt"))

test_loss, test_acc = evaluate(test_data_loader, model, criterion, device)

print(f"test_loss: {test_loss:.3f}, test_acc: {test_acc:.3f}")

def predict_sentiment(text, model, tokenizer, vocab, device):
    tokens = tokenizer(text)
    ids = vocab.lookup_indices(tokens)
    length = torch.LongTensor([len(ids)])
    tensor = torch.LongTensor(ids).unsqueeze(dim=0).to(device)
    prediction = model(tensor, length).squeeze(dim=0)
    probability = torch.softmax(prediction, dim=-1)
    predicted_class = prediction.argmax(dim=-1).item()
    predicted_probability = probability[predicted_class].item()
    return predicted_class, predicted_probability

text = "This film is terrible!"

print(predict_sentiment(text, model, tokenizer, vocab, device))

text = "This film is great!"

print(predict_sentiment(text, model, tokenizer, vocab, device))

text = "This film is not terrible, it's great!"

print(predict_sentiment(text, model, tokenizer, vocab, device))

text = "This film is not great, it's terrible!"

print(predict_sentiment(text, model, tokenizer, vocab, device))
