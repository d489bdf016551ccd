# Corpus program: the GPT of "Build a Large Language Model (From Scratch)", chapters 3 to 5.
# Source: rasbt/LLMs-from-scratch, ch03 (SelfAttention_v2, CausalAttention, MultiHeadAttention with a
#   registered triu mask), ch04 (LayerNorm, GELU's tanh form with torch.pi, FeedForward, TransformerBlock,
#   GPTModel, generate_text_simple) and ch05 (calc_loss_batch, a short training loop, generate with
#   temperature and top-k through torch.where and torch.multinomial).
# Licence: Apache-2.0 (LLMs-from-scratch); re-written here following the chapters.
# Changes: a 12-token vocabulary and a tiny configuration instead of GPT-2's tokenizer and 124M weights;
#   the data loader is a few fixed windows; 15 AdamW steps.
# Randomness: torch.manual_seed (minitorch draws PyTorch's numbers), as the book seeds everything.
# corpus-tolerance: rtol=1e-4 -- float32 training of a transformer.
import torch
import torch.nn as nn

torch.manual_seed(123)

# -- chapter 3: attention -----------------------------------------------------------------------------------
inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])


class SelfAttention_v2(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        attn_scores = queries @ keys.T
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        return attn_weights @ values


sa_v2 = SelfAttention_v2(3, 2)
print(sa_v2(inputs))

context_length = inputs.shape[0]
mask_simple = torch.tril(torch.ones(context_length, context_length))
queries, keys = sa_v2.W_query(inputs), sa_v2.W_key(inputs)
attn_scores = queries @ keys.T
mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)
masked = attn_scores.masked_fill(mask.bool(), -torch.inf)
print(torch.softmax(masked / keys.shape[-1] ** 0.5, dim=1))


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out, self.num_heads, self.head_dim = d_out, num_heads, d_out // num_heads
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, num_tokens, d_in = x.shape
        keys, queries, values = self.W_key(x), self.W_query(x), self.W_value(x)
        keys = keys.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = queries.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = values.view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        attn_scores = queries @ keys.transpose(2, 3)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)
        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


batch = torch.stack((inputs, inputs), dim=0)
mha = MultiHeadAttention(3, 4, batch.shape[1], 0.0, num_heads=2)
print(mha(batch).shape)

# -- chapter 4: the model -------------------------------------------------------------------------------------
CONFIG = {"vocab_size": 12, "context_length": 8, "emb_dim": 16, "n_heads": 2, "n_layers": 2, "drop_rate": 0.1,
          "qkv_bias": False}


class LayerNorm(nn.Module):
    def __init__(self, emb_dim):
        super().__init__()
        self.eps = 1e-5
        self.scale = nn.Parameter(torch.ones(emb_dim))
        self.shift = nn.Parameter(torch.zeros(emb_dim))

    def forward(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = x.var(dim=-1, keepdim=True, unbiased=False)
        return self.scale * (x - mean) / torch.sqrt(var + self.eps) + self.shift


class GELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1 + torch.tanh(torch.sqrt(torch.tensor(2.0 / torch.pi)) * (x + 0.044715 * torch.pow(x, 3))))


class FeedForward(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(cfg["emb_dim"], 4 * cfg["emb_dim"]), GELU(),
                                    nn.Linear(4 * cfg["emb_dim"], cfg["emb_dim"]))

    def forward(self, x):
        return self.layers(x)


class TransformerBlock(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.att = MultiHeadAttention(cfg["emb_dim"], cfg["emb_dim"], cfg["context_length"], cfg["drop_rate"],
                                      cfg["n_heads"], cfg["qkv_bias"])
        self.ff = FeedForward(cfg)
        self.norm1, self.norm2 = LayerNorm(cfg["emb_dim"]), LayerNorm(cfg["emb_dim"])
        self.drop_shortcut = nn.Dropout(cfg["drop_rate"])

    def forward(self, x):
        shortcut = x
        x = self.drop_shortcut(self.att(self.norm1(x))) + shortcut
        shortcut = x
        return self.drop_shortcut(self.ff(self.norm2(x))) + shortcut


class GPTModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok_emb = nn.Embedding(cfg["vocab_size"], cfg["emb_dim"])
        self.pos_emb = nn.Embedding(cfg["context_length"], cfg["emb_dim"])
        self.drop_emb = nn.Dropout(cfg["drop_rate"])
        self.trf_blocks = nn.Sequential(*[TransformerBlock(cfg) for _ in range(cfg["n_layers"])])
        self.final_norm = LayerNorm(cfg["emb_dim"])
        self.out_head = nn.Linear(cfg["emb_dim"], cfg["vocab_size"], bias=False)

    def forward(self, in_idx):
        batch_size, seq_len = in_idx.shape
        x = self.tok_emb(in_idx) + self.pos_emb(torch.arange(seq_len, device=in_idx.device))
        x = self.trf_blocks(self.drop_emb(x))
        return self.out_head(self.final_norm(x))


model = GPTModel(CONFIG)
total_params = sum(p.numel() for p in model.parameters())
print(f"Total number of parameters: {total_params:,}")


def generate_text_simple(model, idx, max_new_tokens, context_size):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        probas = torch.softmax(logits, dim=-1)
        idx_next = torch.argmax(probas, dim=-1, keepdim=True)
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


model.eval()
print(generate_text_simple(model, torch.tensor([[1, 5, 3]]), 4, CONFIG["context_length"]))

# -- chapter 5: training and sampling ----------------------------------------------------------------------
text_ids = torch.tensor([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0] * 4)
windows = [(text_ids[i:i + 8], text_ids[i + 1:i + 9]) for i in range(0, 36, 4)]


def calc_loss_batch(input_batch, target_batch, model, device):
    logits = model(input_batch.to(device))
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.to(device).flatten())


optimizer = torch.optim.AdamW(model.parameters(), lr=0.004, weight_decay=0.1)
model.train()
for step in range(15):
    inputs_batch = torch.stack([w[0] for w in windows[step % 3::3]])
    targets_batch = torch.stack([w[1] for w in windows[step % 3::3]])
    optimizer.zero_grad()
    loss = calc_loss_batch(inputs_batch, targets_batch, model, "cpu")
    loss.backward()
    optimizer.step()
    if step % 5 == 4:
        print(f"step {step + 1}: train loss {loss.item():.3f}")


def generate(model, idx, max_new_tokens, context_size, temperature=0.0, top_k=None, eos_id=None):
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -context_size:]
        with torch.no_grad():
            logits = model(idx_cond)
        logits = logits[:, -1, :]
        if top_k is not None:
            top_logits, _ = torch.topk(logits, top_k)
            min_val = top_logits[:, -1]
            logits = torch.where(logits < min_val, torch.tensor(float("-inf")).to(logits.device), logits)
        if temperature > 0.0:
            logits = logits / temperature
            probs = torch.softmax(logits, dim=-1)
            idx_next = torch.multinomial(probs, num_samples=1)
        else:
            idx_next = torch.argmax(logits, dim=-1, keepdim=True)
        if idx_next == eos_id:
            break
        idx = torch.cat((idx, idx_next), dim=1)
    return idx


model.eval()
torch.manual_seed(123)
print(generate(model, torch.tensor([[1, 2, 3]]), 6, CONFIG["context_length"], temperature=1.4, top_k=3))
print(generate(model, torch.tensor([[4, 5]]), 6, CONFIG["context_length"]))
