# Corpus program: "Build a Large Language Model (From Scratch)", chapter 6 and appendices D and E: a classifier head
#   replacing the output layer with frozen parameters except the last block, calc_accuracy_loader, the training loop
#   with learning-rate warmup, cosine decay and gradient clipping, and LoRA (LoRALayer, LinearWithLoRA,
#   replace_linear_with_lora).
# Source: rasbt/LLMs-from-scratch, ch06/01_main-chapter-code/ch06.ipynb, appendix-D/01_main-chapter-
#   code/appendix-D.ipynb, appendix-E/01_main-chapter-code/appendix-E.ipynb.
# Licence: Apache-2.0 (LLMs-from-scratch); re-written here following the notebooks.
# Changes: the GPT is a 2-layer stand-in (embeddings, the book's blocks without their attention, final norm, out_head)
#   instead of the book's GPT-2 weights; spam data are random token ids; 6 steps.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers).
# corpus-tolerance: rtol=1e-3 -- float32 training.
import math

import torch
import torch.nn as nn

torch.manual_seed(123)


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]),
            nn.GELU(approximate="tanh"),
            nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]),
        )

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ff = FeedForward(cfg)
        self.norm2 = nn.LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        # Shortcut connection for feed forward block
        shortcut = x
        x = self.norm2(x)
        x = self.ff(x)
        x = self.drop_shortcut(x)
        x = x + shortcut  # Add the original input back
        return x


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = nn.LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        tok_embeds = self.tok_emb(in_idx)
        pos_embeds = self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = tok_embeds + pos_embeds  # Shape [batch_size, num_tokens, emb_size]
        x = self.drop_emb(x)
        x = self.trf_blocks(x)
        x = self.final_norm(x)
        logits = self.out_head(x)
        return logits


BASE_CONFIG = {"vocab_size": 50, "context_length": 12, "drop_rate": 0.0, "qkv_bias": True, "emb_dim": 16,
               "n_layers": 2, "n_heads": 2}
model = GPTModel(BASE_CONFIG)
for param in model.parameters():
    param.requires_grad = False
torch.manual_seed(123)
num_classes = 2
model.out_head = torch.nn.Linear(in_features=BASE_CONFIG["emb_dim"], out_features=num_classes)
for param in model.trf_blocks[-1].parameters():
    param.requires_grad = True
for param in model.final_norm.parameters():
    param.requires_grad = True
inputs = torch.tensor([[5, 11, 40, 21]])
print("Inputs:", inputs)
print("Inputs dimensions:", inputs.shape) # shape: (batch_size, num_tokens)
with torch.no_grad():
    outputs = model(inputs)
print("Outputs:\n", outputs)
print("Outputs dimensions:", outputs.shape) # shape: (batch_size, num_tokens, num_classes)
print("Last output token:", outputs[:, -1, :])
probas = torch.softmax(outputs[:, -1, :], dim=-1)
label = torch.argmax(probas)
print("Class label:", label.item())

data = [(torch.randint(0, 50, (4, 12)), torch.randint(0, 2, (4,))) for _ in range(3)]


def calc_accuracy_loader(data_loader, model, device, num_batches=None):
    model.eval()
    correct_predictions, num_examples = 0, 0
    if num_batches is None:
        num_batches = len(data_loader)
    else:
        num_batches = min(num_batches, len(data_loader))
    for i, (input_batch, target_batch) in enumerate(data_loader):
        if i < num_batches:
            input_batch, target_batch = input_batch.to(device), target_batch.to(device)
            with torch.no_grad():
                logits = model(input_batch)[:, -1, :]  # Logits of last output token
            predicted_labels = torch.argmax(logits, dim=-1)
            num_examples += predicted_labels.shape[0]
            correct_predictions += (predicted_labels == target_batch).sum().item()
        else:
            break
    return correct_predictions / num_examples


def calc_loss_batch(input_batch, target_batch, model, device):
    input_batch, target_batch = input_batch.to(device), target_batch.to(device)
    logits = model(input_batch)[:, -1, :]  # Logits of last output token
    loss = torch.nn.functional.cross_entropy(logits, target_batch)
    return loss


device = torch.device("cpu")
print(f"Training accuracy: {calc_accuracy_loader(data, model, device, num_batches=2)*100:.2f}%")
print(sum(p.numel() for p in model.parameters() if p.requires_grad), "trainable")

# appendix D: warmup, cosine decay, clipping
n_epochs = 2
initial_lr = 0.0001
peak_lr = 0.01
total_steps = len(data) * n_epochs
warmup_steps = int(0.2 * total_steps) # 20% warmup
lr_increment = (peak_lr - initial_lr) / warmup_steps
min_lr = 0.1 * initial_lr
optimizer = torch.optim.AdamW(model.parameters(), weight_decay=0.1)
global_step = -1
track_lrs = []
for epoch in range(n_epochs):
    for input_batch, target_batch in data:
        optimizer.zero_grad()
        global_step += 1
        if global_step < warmup_steps:
            # Linear warmup
            lr = initial_lr + global_step * lr_increment
        else:
            # Cosine annealing after warmup
            progress = ((global_step - warmup_steps) /
                        (total_steps - warmup_steps))
            lr = min_lr + (peak_lr - min_lr) * 0.5 * (1 + math.cos(math.pi * progress))
        # Apply the calculated learning rate to the optimizer
        for param_group in optimizer.param_groups:
            param_group["lr"] = lr
        track_lrs.append(lr)  # Store the current learning rate
        model.train()
        loss = calc_loss_batch(input_batch, target_batch, model, device)
        loss.backward()
        # Apply gradient clipping after the warmup phase to avoid exploding gradients
        if global_step > warmup_steps:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        print(f"Ep {epoch+1} (Iter {global_step:06d}): Train loss {loss.item():.4f}")
print([round(v, 6) for v in track_lrs])


# appendix E: LoRA
class LoRALayer(torch.nn.Module):
    def __init__(self, in_dim, out_dim, rank, alpha):
        super().__init__()
        self.A = torch.nn.Parameter(torch.empty(in_dim, rank))
        torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))  # similar to standard weight initialization
        self.B = torch.nn.Parameter(torch.zeros(rank, out_dim))
        self.alpha = alpha

    def forward(self, x):
        x = self.alpha * (x @ self.A @ self.B)
        return x


class LinearWithLoRA(torch.nn.Module):
    def __init__(self, linear, rank, alpha):
        super().__init__()
        self.linear = linear
        self.lora = LoRALayer(
            linear.in_features, linear.out_features, rank, alpha
        )

    def forward(self, x):
        return self.linear(x) + self.lora(x)


def replace_linear_with_lora(model, rank, alpha):
    for name, module in model.named_children():
        if isinstance(module, torch.nn.Linear):
            # Replace the Linear layer with LinearWithLoRA
            setattr(model, name, LinearWithLoRA(module, rank, alpha))
        else:
            # Recursively apply the same function to child modules
            replace_linear_with_lora(module, rank, alpha)


total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total trainable parameters before: {total_params:,}")
for param in model.parameters():
    param.requires_grad = False
total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total trainable parameters after: {total_params:,}")
replace_linear_with_lora(model, rank=4, alpha=8)
total_params = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"Total trainable LoRA parameters: {total_params:,}")
print(model.out_head)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.1)
for input_batch, target_batch in data:
    optimizer.zero_grad()
    loss = calc_loss_batch(input_batch, target_batch, model, device)
    loss.backward()
    optimizer.step()
    print(f"{loss.item():.4f}")
print(model.out_head.lora.B.abs().sum() > 0, model.trf_blocks[0].ff.layers[0].lora.A.shape)
