# Corpus program: sentiment analysis with a CNN over word embeddings: Conv1d filters of widths 3, 5 and 7,
#   max over time (.max(dim=-1).values), kaiming_normal_(nonlinearity="relu"), a collate_fn padding to a minimum
#   length, torch.save/torch.load of the best state_dict, predictions with softmax.
# Source: bentrevett/pytorch-sentiment-analysis, "3 - Convolutional Neural Networks.ipynb"
# Licence: MIT (pytorch-sentiment-analysis); the notebook's code cells in order, with the changes below.
# Changes: IMDB (the datasets library), torchtext's tokenizer and vocabulary and GloVe vectors are replaced by
#   160 short templated reviews, a basic_english-like tokenizer, a small Vocab class with the same methods and random
#   vectors, all made with NumPy; batches of 16, embeddings of 32 and 16 filters, 2 epochs; the matplotlib cells are left out; a cell's last expression
#   (shown by the notebook) is printed.
# Randomness: the notebook's np.random.seed(1234) and torch.manual_seed(1234); the reviews from NumPy.
# corpus-tolerance: rtol=1e-3 -- float32 training; losses printed to 3 decimals.
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
        batch_label = [i["label"] for i in batch]
        batch_label = torch.stack(batch_label)
        batch = {"ids": batch_ids, "label": batch_label}
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

class CNN(nn.Module):
    def __init__(
        self,
        vocab_size,
        embedding_dim,
        n_filters,
        filter_sizes,
        output_dim,
        dropout_rate,
        pad_index,
    ):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embedding_dim, padding_idx=pad_index)
        self.convs = nn.ModuleList(
            [
                nn.Conv1d(embedding_dim, n_filters, filter_size)
                for filter_size in filter_sizes
            ]
        )
        self.fc = nn.Linear(len(filter_sizes) * n_filters, output_dim)
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, ids):
        # ids = [batch size, seq len]
        embedded = self.dropout(self.embedding(ids))
        # embedded = [batch size, seq len, embedding dim]
        embedded = embedded.permute(0, 2, 1)
        # embedded = [batch size, embedding dim, seq len]
        conved = [torch.relu(conv(embedded)) for conv in self.convs]
        # conved_n = [batch size, n filters, seq len - filter_sizes[n] + 1]
        pooled = [conv.max(dim=-1).values for conv in conved]
        # pooled_n = [batch size, n filters]
        cat = self.dropout(torch.cat(pooled, dim=-1))
        # cat = [batch size, n filters * len(filter_sizes)]
        prediction = self.fc(cat)
        # prediction = [batch size, output dim]
        return prediction

vocab_size = len(vocab)
embedding_dim = 32
n_filters = 16
filter_sizes = [3, 5, 7]
output_dim = len(train_data.unique("label"))
dropout_rate = 0.25

model = CNN(
    vocab_size,
    embedding_dim,
    n_filters,
    filter_sizes,
    output_dim,
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
    elif isinstance(m, nn.Conv1d):
        nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        nn.init.zeros_(m.bias)

model.apply(initialize_weights)

# GloVe vectors stand-in: random vectors from NumPy, one per word of the vocabulary.
pretrained_embedding = torch.from_numpy(
    np.random.default_rng(1).normal(size=(len(vocab.get_itos()), embedding_dim)).astype(np.float32))


model.embedding.weight.data = pretrained_embedding

optimizer = optim.Adam(model.parameters())

criterion = nn.CrossEntropyLoss()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

print(device)

model = model.to(device)
criterion = criterion.to(device)

def train(data_loader, model, criterion, optimizer, device):
    model.train()
    epoch_losses = []
    epoch_accs = []
    for batch in tqdm.tqdm(data_loader, desc="training..."):
        ids = batch["ids"].to(device)
        label = batch["label"].to(device)
        prediction = model(ids)
        loss = criterion(prediction, label)
        accuracy = get_accuracy(prediction, label)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_losses.append(loss.item())
        epoch_accs.append(accuracy.item())
    return np.mean(epoch_losses), np.mean(epoch_accs)

def evaluate(data_loader, model, criterion, device):
    model.eval()
    epoch_losses = []
    epoch_accs = []
    with torch.no_grad():
        for batch in tqdm.tqdm(data_loader, desc="evaluating..."):
            ids = batch["ids"].to(device)
            label = batch["label"].to(device)
            prediction = model(ids)
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
        torch.save(model.state_dict(), "cnn.pt")
    print(f"epoch: {epoch}")
    print(f"train_loss: {train_loss:.3f}, train_acc: {train_acc:.3f}")
    print(f"valid_loss: {valid_loss:.3f}, valid_acc: {valid_acc:.3f}")

model.load_state_dict(torch.load("cnn.pt"))

test_loss, test_acc = evaluate(test_data_loader, model, criterion, device)

print(f"test_loss: {test_loss:.3f}, test_acc: {test_acc:.3f}")

def predict_sentiment(text, model, tokenizer, vocab, device, min_length, pad_index):
    tokens = tokenizer(text)
    ids = vocab.lookup_indices(tokens)
    if len(ids) < min_length:
        ids += [pad_index] * (min_length - len(ids))
    tensor = torch.LongTensor(ids).unsqueeze(dim=0).to(device)
    prediction = model(tensor).squeeze(dim=0)
    probability = torch.softmax(prediction, dim=-1)
    predicted_class = prediction.argmax(dim=-1).item()
    predicted_probability = probability[predicted_class].item()
    return predicted_class, predicted_probability

text = "This film is terrible!"
min_length = max(filter_sizes)

print(predict_sentiment(text, model, tokenizer, vocab, device, min_length, pad_index))

text = "This film is great!"

print(predict_sentiment(text, model, tokenizer, vocab, device, min_length, pad_index))

text = "This film is not terrible, it's great!"

print(predict_sentiment(text, model, tokenizer, vocab, device, min_length, pad_index))

text = "This film is not great, it's terrible!"

print(predict_sentiment(text, model, tokenizer, vocab, device, min_length, pad_index))
