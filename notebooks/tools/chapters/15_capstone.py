"""Chapter 15: capstone. A character-level language model on The Devil's Dictionary, built from the learner's pieces
(training windows, an embedding lookup as a Function, causal self-attention, the training loop, sampling with
temperature), trained on a CPU in seconds to a stated validation loss, then sampled; then the same model trained on
the learner's own library (tensor, engine, Module, loss, optimizer, loader, attention, each piece announced as the
learner's or minitorch's) beside minitorch and PyTorch, from the same initial values on the same batches."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 15. Capstone: a character-level language model

    Chapters 8 and 9 used `nn.Embedding` and attention; chapter 5 trained with an optimizer. Here you put those
    ideas together yourself, from pieces you write, into a small language model in the style of GPT: it reads a
    text one character at a time and learns to predict the next character. Trained on a laptop's CPU for a few
    seconds, it writes text that looks, from a distance, like its model.

    By the end of this chapter you will have written:

    * `get_batch`: cut training windows (inputs, and targets one character later) out of a long text;
    * `EmbeddingLookup`: the embedding lookup as an autograd `Function`, forward **and backward**;
    * `causal_self_attention`: multi-head self-attention where no position sees the characters after it;
    * the **training loop** of the model, trained to a stated validation loss;
    * `sample_next`: sampling the next character with a **temperature**, to generate text.

    At the end the same model trains on **your own minitorch**: the pieces you built in the earlier chapters (your
    `Function`, `ctx`, `AccumulateGrad` and engine from chapter 2, your `Module` from chapter 4, your loss and your
    `AdamW` from chapter 5, your attention from chapter 9, your strided tensor from chapter 1) next to minitorch and
    PyTorch, step by step.

    The model is deliberately small (one transformer block, 48 features, a context of 24 characters) and the text is
    short (about 105,000 characters), so that 1,000 training steps take seconds on 2 CPU cores, and the whole chapter
    (your 1,000-step training run, then 200 steps of the same model on your library, on minitorch and on PyTorch)
    under half a minute; each training cell prints the time it took. Bigger models and longer training write much
    better text; the machinery is the same.
    """),
    code("""
    import math
    import time

    import numpy as np

    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    import minitorch.optim as optim
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
    """),
    md(r"""
    ## 1. The text

    The model learns from *The Devil's Dictionary* by Ambrose Bierce (1842–1914), published in 1911: definitions
    such as "ABASEMENT, n. A decent and customary mental attitude in the presence of wealth or power". The file
    `the_devils_dictionary.txt`, in this chapter's folder, holds the entries A to F (about 105,000 characters).

    **Source and licence.** The text is in the **public domain** (its copyright has expired; it is distributed as "A
    Public Domain Text, Copyright Expired"). It was taken from Debian's package `dict-devil` (version 1.0-13.1, whose
    copyright file says: "The Devil's Dictionary is in the public domain, its copyright has expired"), from the first
    entry to the end of the entry FUTURE, unchanged; `ABOUT_THE_TEXT.md` beside this notebook says the same. Nothing
    is downloaded.

    A character-level model needs a **vocabulary**: here every distinct character of the text, numbered in sorted
    order. `encode` turns a string into ids, `decode` turns ids back into a string. The first 90% of the text is for
    training, the last 10% for **validation**: text the model never trains on, to measure how well it predicts
    characters it has not seen.
    """),
    code("""
    text = open("the_devils_dictionary.txt", encoding="ascii").read()
    vocabulary = sorted(set(text))
    vocab_size = len(vocabulary)
    id_of = {character: number for number, character in enumerate(vocabulary)}


    def encode(string):
        return [id_of[character] for character in string]


    def decode(ids):
        return "".join(vocabulary[number] for number in ids)


    ids = minitorch.tensor(encode(text))                          # int64, one id per character
    split = int(0.9 * len(ids))
    train_ids, val_ids = ids[:split], ids[split:]
    print(f"{len(text):,} characters, {vocab_size} distinct: {''.join(vocabulary)!r}")
    print(f"training: {len(train_ids):,} characters, validation: {len(val_ids):,}")
    print(text[:300])
    """),
    md(r"""
    ### What loss means here, and two baselines

    The model outputs, at every position, a score (**logit**) for each of the `vocab_size` characters; softmax turns
    them into probabilities, and the loss is the **cross-entropy**: the average of $-\ln p(\text{the true next
    character})$. A model that guesses uniformly scores $\ln(\text{vocab\_size})$. Two baselines, computed by counting
    on the training text and measured on the validation text: the **unigram** model (the frequency of each
    character) and the **bigram** model (the frequency of each character *after* the previous one; a little smoothing
    keeps unseen pairs from having probability 0). A model that uses more context than one character must beat the
    bigram; the **trigram** model (the two previous characters) shows what a little more context is worth.

    The trigram is the bar your trained model must clear: counting needs no network, so a goal the trigram already
    reaches would not show that the network learned anything. The grade's target, `TARGET_LOSS` below, is under the
    trigram's loss (the cell prints both).
    """),
    code("""
    train_array, val_array = train_ids.numpy(), val_ids.numpy()
    unigram = np.bincount(train_array, minlength=vocab_size) + 0.1
    unigram_loss = -np.log(unigram / unigram.sum())[val_array].mean()
    pair_counts = np.full((vocab_size, vocab_size), 0.1)
    np.add.at(pair_counts, (train_array[:-1], train_array[1:]), 1)
    bigram = pair_counts / pair_counts.sum(axis=1, keepdims=True)
    bigram_loss = -np.log(bigram[val_array[:-1], val_array[1:]]).mean()
    triple_counts = np.full((vocab_size, vocab_size, vocab_size), 0.1)
    np.add.at(triple_counts, (train_array[:-2], train_array[1:-1], train_array[2:]), 1)
    trigram = triple_counts / triple_counts.sum(axis=2, keepdims=True)
    trigram_loss = -np.log(trigram[val_array[:-2], val_array[1:-1], val_array[2:]]).mean()
    print(f"validation loss of a uniform guess: ln {vocab_size} = {math.log(vocab_size):.3f}")
    print(f"validation loss of the unigram model: {unigram_loss:.3f}")
    print(f"validation loss of the bigram model:  {bigram_loss:.3f}")
    print(f"validation loss of the trigram model: {trigram_loss:.3f}")
    TARGET_LOSS = 2.05
    print(f"the target for your trained model: {TARGET_LOSS} ({trigram_loss - TARGET_LOSS:.3f} below the trigram's)")
    """),
    md(r"""
    ## 2. Training windows

    The model learns from windows of `block_size` consecutive characters. In one window it makes `block_size`
    predictions at once: after the first character, the second; after the first two, the third; and so on. So the
    targets are the same window moved one character later: `targets[b, t]` is the character that follows
    `inputs[b, t]`. A batch is a few windows starting at random places.

    ### Exercise 1: `get_batch`

    Write `get_batch(data, starts, block_size)`: `data` is a 1-d tensor of ids, `starts` a 1-d tensor of start
    positions (each at most `len(data) - block_size - 1`). Return `(inputs, targets)`, two int64 tensors of shape
    `(len(starts), block_size)`: `inputs[b]` the ids from `starts[b]` on, `targets[b]` the ids one position later.
    No Python loop (no `for`, `while` or comprehension in `get_batch`: the check reads its code): build the table of
    positions by broadcasting and index `data` with it once.
    `hint("ch15.get_batch")` gives hints step by step.
    """),
    solution('''
    def get_batch(data, starts, block_size):
        """(inputs, targets), each (len(starts), block_size): windows of data, the targets one character later."""
        ### BEGIN SOLUTION
        positions = starts.reshape(-1, 1) + minitorch.arange(block_size, device=data.device)
        return data[positions], data[positions + 1]
        ### END SOLUTION
    ''', "ch15-get-batch"),
    tests("""
    check("ch15.get_batch", get_batch)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch15.get_batch", get_batch, [
        (np.random.default_rng(15101).integers(0, 50, 100), np.array([90, 0, 45, 7, 7]), 9),
        (np.arange(40, 0, -1), np.array([38]), 1),
        (np.random.default_rng(15102).integers(0, 3, 64), np.array([3, 1, 4, 1, 5, 9, 2, 6]), 32),
    ])
    ### END HIDDEN TESTS
    """, "ch15-get-batch-tests", points=2),
    code("""
    try:
        inputs, targets = get_batch(train_ids, minitorch.tensor([0, 1000]), 24)
        for row in range(2):
            print(f"inputs:  {decode(inputs[row].tolist())!r}")
            print(f"targets: {decode(targets[row].tolist())!r}")
    except NotImplementedError:
        print("Complete get_batch above first, then run this cell again.")
    """),
    md(r"""
    ## 3. The embedding lookup, forward and backward

    The model's first layer turns each id into a vector: row `id` of a table of shape `(vocab_size, width)`, a
    learned parameter. That is `nn.Embedding` (chapter 8); here you write it as an autograd `Function`, so that you
    also write its gradient. Forward is indexing. Backward is the interesting part: each row of the incoming gradient
    goes back to the row of the table it came from, and a character that appears many times in a batch (the space,
    the letter e) collects the **sum** of the gradients of all its appearances. Rows of characters that do not appear
    get 0.

    ### Exercise 2: `EmbeddingLookup`

    Complete `EmbeddingLookup`: `forward(ctx, weight, indices)` returns `weight[indices]` (shape
    `indices.shape + (width,)`) and saves what backward needs; `backward(ctx, grad_output)` returns the gradient for
    the table and `None` for the ids (they are integers: no gradient). No autograd inside backward: build the table's
    gradient from zeros. `embedding_forward_backward` (already written) calls your forward and backward directly; the
    check compares with `F.embedding` and autograd, on ids that repeat.
    """),
    solution('''
    class EmbeddingLookup(minitorch.autograd.Function):
        """rows = weight[indices]; backward adds each row of grad_output into the row of weight it came from."""

        @staticmethod
        def forward(ctx, weight, indices):
            ### BEGIN SOLUTION
            ctx.save_for_backward(indices)
            ctx.num_rows = weight.shape[0]
            return weight[indices]
            ### END SOLUTION

        @staticmethod
        def backward(ctx, grad_output):
            ### BEGIN SOLUTION
            (indices,) = ctx.saved_tensors
            width = grad_output.shape[-1]
            grad_weight = minitorch.zeros(ctx.num_rows, width, dtype=grad_output.dtype, device=grad_output.device)
            grad_weight.index_add_(0, indices.reshape(-1), grad_output.reshape(-1, width))
            return grad_weight, None
            ### END SOLUTION


    class DirectContext:
        """Stands in for ctx, so that forward and backward can be called without the engine."""

        def save_for_backward(self, *tensors):
            self.saved_tensors = tensors


    def embedding_forward_backward(weight, indices, grad_output):
        """(rows, grad_weight) from EmbeddingLookup's forward and backward, called directly."""
        ctx = DirectContext()
        rows = EmbeddingLookup.forward(ctx, weight, indices)
        grad_weight, _ = EmbeddingLookup.backward(ctx, grad_output)
        return rows, grad_weight
    ''', "ch15-embedding"),
    tests("""
    check("ch15.embedding_forward_backward", embedding_forward_backward)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch15.embedding_forward_backward", embedding_forward_backward, [
        (randn(81, 6, seed=15201, dtype="float64"), np.random.default_rng(15202).integers(0, 81, (4, 24)),
         randn(4, 24, 6, seed=15203, dtype="float64")),
        (randn(3, 5, seed=15204, dtype="float64"), np.array([2, 2, 2, 2, 2]),
         randn(5, 5, seed=15205, dtype="float64")),
        (randn(7, 1, seed=15206, dtype="float64"), np.array([[[6]], [[0]]]),
         randn(2, 1, 1, 1, seed=15207, dtype="float64")),
    ])
    ### END HIDDEN TESTS
    """, "ch15-embedding-tests", points=3),
    code("""
    # Your Function inside autograd: gradcheck compares its backward with finite differences of its forward.
    try:
        table = minitorch.randn(5, 3, dtype=minitorch.float64, requires_grad=True)
        looked_up = minitorch.tensor([[4, 1, 4], [0, 4, 4]])
        passes = minitorch.autograd.gradcheck(lambda weight: EmbeddingLookup.apply(weight, looked_up), (table,))
        print("EmbeddingLookup passes gradcheck:", passes)
    except NotImplementedError:
        print("Complete EmbeddingLookup above first, then run this cell again.")
    """),
    md(r"""
    ## 4. Causal self-attention

    Attention (chapter 9) lets every position take a weighted average of the others' values, with weights from how
    well its query matches their keys. A language model must not cheat: when it predicts the character after
    position $t$, it may use positions $0, \dots, t$ only. The **causal mask** sets the scores of later positions to
    $-\infty$ before the softmax, so their weights are exactly 0. With several **heads**, the features are cut into
    `num_heads` slices and each slice attends on its own, with its own weights; the heads' outputs are put back side by
    side.

    The parameters are laid out as in `nn.MultiheadAttention`: `in_weight` `(3·width, width)` stacks the query, key
    and value projections (with `in_bias`), and `out_weight`, `out_bias` project the heads' output.

    ### Exercise 3: `causal_self_attention`

    Write `causal_self_attention(x, in_weight, in_bias, out_weight, out_bias, num_heads)` for `x` of shape
    `(batch, length, width)`: project to queries, keys and values; split them into heads of `width // num_heads`
    features, `(batch, num_heads, length, head_width)`; in each head the scores $QK^\top/\sqrt{\text{head\_width}}$,
    the causal mask, the softmax over the keys and the weighted sum of the values; merge the heads back to `(batch,
    length, width)` and apply the output projection. The check compares with `F.multi_head_attention_forward` (what
    `nn.MultiheadAttention` runs) given a causal mask.
    """),
    solution('''
    def causal_self_attention(x, in_weight, in_bias, out_weight, out_bias, num_heads):
        """Multi-head self-attention in which position t attends to positions 0 .. t only."""
        ### BEGIN SOLUTION
        batch, length, width = x.shape
        head_width = width // num_heads
        query, key, value = F.linear(x, in_weight, in_bias).chunk(3, dim=-1)

        def heads_of(features):
            return features.reshape(batch, length, num_heads, head_width).transpose(1, 2)

        scores = heads_of(query) @ heads_of(key).transpose(-2, -1) / math.sqrt(head_width)
        future = minitorch.ones(length, length, dtype=minitorch.bool, device=x.device).triu(1)
        weights = F.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
        merged = (weights @ heads_of(value)).transpose(1, 2).reshape(batch, length, width)
        return F.linear(merged, out_weight, out_bias)
        ### END SOLUTION
    ''', "ch15-attention"),
    tests("""
    check("ch15.causal_self_attention", causal_self_attention)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch15.causal_self_attention", causal_self_attention, [
        (randn(2, 1, 6, seed=15301, dtype="float64"), randn(18, 6, seed=15302, dtype="float64", scale=0.3),
         randn(18, seed=15303, dtype="float64"), randn(6, 6, seed=15304, dtype="float64", scale=0.3),
         randn(6, seed=15305, dtype="float64"), 3),
        (randn(1, 9, 16, seed=15311, dtype="float64"), randn(48, 16, seed=15312, dtype="float64", scale=0.3),
         randn(48, seed=15313, dtype="float64"), randn(16, 16, seed=15314, dtype="float64", scale=0.3),
         randn(16, seed=15315, dtype="float64"), 4),
        (randn(4, 3, 6, seed=15321, dtype="float64"), randn(18, 6, seed=15322, dtype="float64", scale=0.3),
         randn(18, seed=15323, dtype="float64"), randn(6, 6, seed=15324, dtype="float64", scale=0.3),
         randn(6, seed=15325, dtype="float64"), 2),
    ])
    ### END HIDDEN TESTS
    """, "ch15-attention-tests", points=3),
    md(r"""
    ## 5. The model, and the training loop

    The model, already written below from your pieces, is one transformer block as in GPT:

    $$x = \text{EmbeddingLookup}(\text{ids}) + \text{position vectors}$$
    $$x = x + \text{causal\_self\_attention}(\text{LayerNorm}(x)) \qquad x = x + \text{MLP}(\text{LayerNorm}(x))$$
    $$\text{logits} = \text{Linear}(\text{LayerNorm}(x))$$

    The position vectors (one learned vector per position of the window) tell the block *where* each character is;
    attention alone would not know. The residual additions ($x = x + \dots$) and the layer norms keep the signal and
    the gradients at a steady size (chapter 11). An `nn.MultiheadAttention` module only holds the attention's
    parameters, in PyTorch's layout and with its initialisation; your function does the computing.

    ### Exercise 4: the training loop

    Complete `train_language_model(train_ids, vocab_size, seed)`. The model, the optimizer (AdamW) and a schedule
    that lowers the learning rate linearly to 0 are made for you, from `seed`. Write the loop, `STEPS` steps: draw
    `BATCH_SIZE` random starts with `generator`, cut a batch with your `get_batch`, compute the cross-entropy of the
    model's logits against the targets **at every position**, and take one optimizer step (and one schedule step).

    The grade is the trained model itself, measured by the grader. `trained_parameters` (already written) trains
    the model with your loop (once per seed: the cells below reuse the run) and hands over its parameters; the
    grader loads them into this chapter's model, built from the library's own embedding and attention, and computes
    the loss itself on **text your code never sees**: more entries of the same dictionary, kept by the instructor,
    not in this folder. It must reach `TARGET_LOSS` (2.05) or less, below the trigram's loss: only a network that
    learned to use its context gets there. Keep the model's sizes as they are (the grader rebuilds the model with
    them). A model whose attention sees the future learns to lean on it, and fails there, where it cannot. The
    reference solution reaches about 1.98 on that text; `evaluate` below measures your model on the validation text
    (which your code could see: it is for you, not for the grade) and checks that no prediction changes when a
    *later* character changes.
    """),
    solution('''
    BLOCK_SIZE = 24          # characters of context
    WIDTH = 48               # features per position
    NUM_HEADS = 2
    BATCH_SIZE = 32
    STEPS = 1000
    LEARNING_RATE = 2e-2


    class CharTransformer(nn.Module):
        """ids (batch, length <= BLOCK_SIZE) -> logits (batch, length, vocab_size): one GPT-style block."""

        def __init__(self, vocab_size):
            super().__init__()
            self.token_vectors = nn.Parameter(minitorch.randn(vocab_size, WIDTH))
            self.position_vectors = nn.Parameter(0.1 * minitorch.randn(BLOCK_SIZE, WIDTH))
            self.attention_norm = nn.LayerNorm(WIDTH)
            self.attention = nn.MultiheadAttention(WIDTH, NUM_HEADS)  # holds the parameters; your function computes
            self.mlp_norm = nn.LayerNorm(WIDTH)
            self.mlp = nn.Sequential(nn.Linear(WIDTH, 2 * WIDTH), nn.ReLU(), nn.Linear(2 * WIDTH, WIDTH))
            self.output_norm = nn.LayerNorm(WIDTH)
            self.head = nn.Linear(WIDTH, vocab_size)

        def forward(self, ids):
            x = EmbeddingLookup.apply(self.token_vectors, ids) + self.position_vectors[: ids.shape[1]]
            attention = self.attention
            x = x + causal_self_attention(self.attention_norm(x), attention.in_proj_weight, attention.in_proj_bias,
                                          attention.out_proj.weight, attention.out_proj.bias, NUM_HEADS)
            x = x + self.mlp(self.mlp_norm(x))
            return self.head(self.output_norm(x))


    def train_language_model(train_ids, vocab_size, seed, steps=STEPS):
        """A CharTransformer trained for `steps` steps of AdamW on random windows of train_ids."""
        minitorch.manual_seed(seed)
        model = CharTransformer(vocab_size)
        generator = minitorch.Generator().manual_seed(seed)
        optimizer = optim.AdamW(model.parameters(), lr=LEARNING_RATE)
        schedule = optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1 - step / steps)
        ### BEGIN SOLUTION
        for _ in range(steps):
            starts = minitorch.randint(0, len(train_ids) - BLOCK_SIZE, (BATCH_SIZE,), generator=generator)
            inputs, targets = get_batch(train_ids, starts, BLOCK_SIZE)
            logits = model(inputs)
            loss = F.cross_entropy(logits.reshape(-1, vocab_size), targets.reshape(-1))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        ### END SOLUTION
        return model


    def evaluate(model, ids):
        """(the mean cross-entropy over windows of ids, the largest change of a logit when later ids change)."""
        count = (len(ids) - 1) // BLOCK_SIZE
        windows = ids[: count * BLOCK_SIZE].view(count, BLOCK_SIZE)
        following = ids[1 : count * BLOCK_SIZE + 1].view(count, BLOCK_SIZE)
        half = BLOCK_SIZE // 2
        with minitorch.no_grad():
            scores = model(windows)
            validation_loss = F.cross_entropy(scores.flatten(0, 1), following.flatten())
            altered = minitorch.cat([windows[:, :half], (windows[:, half:] + 1) % scores.shape[-1]], dim=1)
            future_influence = (model(altered)[:, :half] - scores[:, :half]).abs().max()
        return validation_loss.item(), future_influence.item()


    _trained_models = {}  # (seed, vocab_size, the text's bytes) -> the model: the check and the cells share a run


    def trained_model(train_ids, vocab_size, seed):
        """Given: the model your loop trains from `seed` on train_ids, trained once per seed and text."""
        key = (seed, vocab_size, train_ids.numpy().tobytes())
        if key not in _trained_models:
            _trained_models[key] = train_language_model(train_ids, vocab_size, seed)
        return _trained_models[key]


    def trained_parameters(train_ids, vocab_size, seed):
        """Given: the trained model's parameters, in the order of its state_dict(), for the grader to measure."""
        return tuple(value.detach() for value in trained_model(train_ids, vocab_size, seed).state_dict().values())
    ''', "ch15-training"),
    md(r"""
    Now train it for real (seed 0, the run the check below measures) and compare with the baselines.
    """),
    code("""
    try:
        started = time.perf_counter()
        model = trained_model(train_ids, vocab_size, seed=0)
        seconds = time.perf_counter() - started
        validation_loss, future_influence = evaluate(model, val_ids)
        parameters = sum(parameter.numel() for parameter in model.parameters())
        print(f"{parameters:,} parameters, {STEPS} steps of {BATCH_SIZE} windows of {BLOCK_SIZE} characters "
              f"in {seconds:.1f} s")
        print(f"validation loss {validation_loss:.3f} (the grade's target {TARGET_LOSS}, on held-out text; trigram "
              f"{trigram_loss:.3f}, bigram {bigram_loss:.3f}, unigram {unigram_loss:.3f}, "
              f"uniform {math.log(vocab_size):.3f})")
        print(f"largest change of an earlier logit when later characters change: {future_influence:.1e}")
    except NotImplementedError:
        model = None
        print("Complete the exercises above first, then run this cell again.")
    """),
    tests("""
    check("ch15.trained_model", trained_parameters)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    # No hidden case: what the learner never sees is the text the model is measured on (the held-out entries G),
    # and one training run (the chapter's, seed 0) keeps the graded check short.
    check_hidden("ch15.trained_model", trained_parameters, [])
    ### END HIDDEN TESTS

    """, "ch15-training-tests", points=3),
    md(r"""
    Compare the printed losses. Below the trigram's, the block uses more than the two previous characters: attention
    can look back to the start of the word, and the position vectors say how far back that is. How far below tells
    how much of its context 1,000 steps have taught it to use. More steps, a longer context, more
    blocks and wider ones all lower the loss, at the price of time: try `train_language_model(train_ids, vocab_size,
    seed=0, steps=1000)` and evaluate it.

    ## 6. Sampling with temperature

    To generate text, feed the model a prompt, take the logits of its **last** position, turn them into
    probabilities and **draw** the next character at random from them; append it and repeat. Drawing (rather than
    always taking the most likely character) keeps the text varied. The **temperature** $T$ divides the logits
    before the softmax: $T < 1$ sharpens the distribution (safer, more repetitive text), $T > 1$ flattens it (more
    surprising, more mistakes); $T \to 0$ is always the most likely character.

    To draw from probabilities $p_0, \dots, p_{V-1}$ with one uniform random number $u \in [0, 1)$: lay the
    probabilities end to end on $[0, 1)$, id 0 first, and return the id whose piece contains $u$ (inverse-transform
    sampling; `minitorch.multinomial` does the same with its own random numbers).

    ### Exercise 5: `sample_next`

    Write `sample_next(logits, temperature, uniform)`: `logits` of shape `(batch, vocab_size)`, a temperature above 0,
    and `uniform` of shape `(batch,)` with numbers in $[0, 1)$. Return the drawn ids, an int64 tensor of shape
    `(batch,)`: for each row, the first id whose running sum of probabilities exceeds that row's $u$.
    """),
    solution('''
    def sample_next(logits, temperature, uniform):
        """One id per row of logits, drawn from softmax(logits / temperature) by inverse transform with `uniform`."""
        ### BEGIN SOLUTION
        probabilities = F.softmax(logits / temperature, dim=-1)
        running_sums = probabilities.cumsum(dim=-1)
        drawn = (running_sums <= uniform.unsqueeze(-1)).sum(dim=-1)
        return drawn.clamp(max=logits.shape[-1] - 1)
        ### END SOLUTION
    ''', "ch15-sample-next"),
    tests("""
    check("ch15.sample_next", sample_next)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch15.sample_next", sample_next, [
        (randn(8, 81, seed=15501), 0.8, np.random.default_rng(15502).random(8).astype(np.float32)),
        (randn(1, 3, seed=15503), 1.0, np.zeros(1, dtype=np.float32)),
        (randn(2, 10, seed=15504, scale=100.0), 0.25, np.random.default_rng(15505).random(2).astype(np.float32)),
        (randn(5, 2, seed=15506), 3.0, np.random.default_rng(15507).random(5).astype(np.float32)),
    ])
    ### END HIDDEN TESTS
    """, "ch15-sample-next-tests", points=2),
    md(r"""
    `generate` (below) feeds the model the last `BLOCK_SIZE` characters at each step and draws the next one with your
    `sample_next`, using a seeded generator for the uniform numbers: the same seed writes the same text. First what
    the **untrained** model writes (characters at random), then the trained one at three temperatures.
    """),
    code("""
    def generate(model, prompt, length=240, temperature=1.0, seed=0):
        generator = minitorch.Generator().manual_seed(seed)
        ids = encode(prompt)
        with minitorch.no_grad():
            for _ in range(length):
                context = minitorch.tensor([ids[-BLOCK_SIZE:]])
                last_logits = model(context)[:, -1]                 # (1, vocab_size): the next character's scores
                uniform = minitorch.rand(1, generator=generator)
                ids.append(sample_next(last_logits, temperature, uniform).item())
        return decode(ids)


    try:
        minitorch.manual_seed(0)
        print("untrained:\\n" + generate(CharTransformer(vocab_size), "ABSURDITY, n.  ", length=120))
        if model is not None:
            for temperature in (0.5, 1.0, 1.5):
                print(f"\\n--- trained, temperature {temperature} ---")
                print(generate(model, "ABSURDITY, n.  ", temperature=temperature))
    except NotImplementedError:
        print("Complete the exercises above first, then run this cell again.")
    """),
    md(r"""
    Read the samples with the loss in mind. What to look for: the shape of the dictionary (capitalised headwords,
    `, n.` after them, two spaces after a full stop, line breaks), short common words (the, of, and) and the letter
    patterns of English, next to many invented words; no meaning. A loss above 2 nats per character means the model
    is still unsure of most characters. Compare the temperatures: the lowest repeats the commonest patterns, the
    highest invents the most.
    """),
    md(r"""
    ## 7. The model on your own minitorch

    Everything above trained on minitorch's pieces: `nn.Linear`, `nn.LayerNorm`, `optim.AdamW`, `F.cross_entropy`,
    minitorch's engine. You have built most of those yourself, chapter by chapter. Here the same model trains on
    **your** library, each piece taken from the chapter where you wrote it (from this notebook, or from that
    chapter's saved notebook beside this one):

    * the **graph** (chapter 2): your `Function.apply` records every training step's graph again, one call per node
      of minitorch's graph in the order minitorch made them: each node is your `Context` (its `next_functions`,
      `needs_input_grad` and `sequence_nr` set by your `apply`; `ctx` keeps the minitorch op whose local derivative
      it computes) and each parameter's gradient is collected by your `AccumulateGrad`. minitorch's forward computes
      the values, so your small tensors stand only for the graph (each holds a 0-d stand-in);
    * the **engine** (chapter 2): your `backward`, with its dependency counts and ready queue, runs that graph:
      it decides the order and adds the gradients up; minitorch's ops supply each node's local derivative. (If your
      `Function` is still blank, your engine runs minitorch's own nodes, seen through thin views with the interface
      your chapter 2 tensor had.)
    * the **Module** (chapter 4): every layer of the model is a subclass of your `MyModule`, its names those of the
      model above (so its `state_dict` is the grader's format); the linear layers call your `linear_forward`;
    * the **loss** and the **optimizer** (chapter 5): your `SoftmaxCrossEntropy` with its own backward, and your
      `AdamW` on your `Optimizer` base;
    * **attention** (chapter 9): your `attention(query, key, value, mask, is_causal)`, causal;
    * the **embedding** (this chapter): your `EmbeddingLookup`;
    * the **tensor** (chapter 1): your `StridedTensor` is not differentiable, so the arithmetic runs on minitorch's
      tensor; it does what strides are for: every training window is an `as_strided` view of the text's storage
      (one dimension, stride 1, the offset the window's start). `TENSOR = "minitorch"` gives that job to
      minitorch's strided tensor instead: your choice, said in the output;
    * the **loader** (chapter 6): a `DataLoader` batches the windows.

    A piece that is still blank, or does not pass its public checks, is replaced by minitorch's, and its line says
    so and names the exercise: the run always completes.
    """),
    code("""
    from grading.library import capstone, my_library

    TENSOR = "yours"   # or "minitorch": whose strided tensor cuts the training windows
    kit = capstone.your_kit(tensor=TENSOR)
    print(f"The pieces of your library in this run ({kit.yours} of {len(kit.lines)} yours):")
    print("\\n".join(kit.lines))
    """),
    md(r"""
    Now three runs of the same model, `COMPARE_STEPS` steps each (200, with the same schedule squeezed into them, so
    that the chapter stays short): on your library, on minitorch, and on PyTorch (when it is installed). They start
    from the same numbers (the initial values of the model above with seed 0, copied into each) and see the same
    batches (the windows your training loop draws with seed 0), with the same AdamW and the same schedule: only the
    pieces differ. In exact arithmetic the three columns would be equal. In float32 each library rounds a little
    differently (another order of additions in a matrix product, in a sum of gradients), and training amplifies
    small differences: the columns agree closely at first and drift apart by small amounts later, while the
    validation losses stay close. The last lines measure both. 200 steps do not reach the grade's target; set
    `COMPARE_STEPS = STEPS` to train all three for the full 1,000 steps (about 25 s more on 2 idle cores), and the
    model trained on your library reaches it too.
    """),
    code("""
    minitorch.manual_seed(0)
    initial = {name: value.numpy().copy() for name, value in CharTransformer(vocab_size).state_dict().items()}
    COMPARE_STEPS = 200   # STEPS (1000) trains the three to the end of the full budget
    starts = capstone.batch_starts(len(train_ids), BLOCK_SIZE, BATCH_SIZE, COMPARE_STEPS, seed=0)
    runs = {}


    def run_on(each_kit):   # train the model on each_kit from `initial`, on the batches of `starts`; measure it
        run = capstone.train(each_kit, initial, train_ids.numpy(), starts, num_heads=NUM_HEADS,
                             learning_rate=LEARNING_RATE)
        run.validation_loss = capstone.window_loss(each_kit, run.model, val_ids.numpy(), BLOCK_SIZE)
        runs[each_kit.name] = run
        print(f"{each_kit.name}: {COMPARE_STEPS} steps in {run.seconds:.1f} s, validation loss "
              f"{run.validation_loss:.3f}")


    run_on(kit)
    """),
    code("""
    run_on(capstone.minitorch_kit())
    """),
    code("""
    pytorch = capstone.pytorch_kit()
    if pytorch is None:
        print("PyTorch is not installed here: its column is left out")
    else:
        run_on(pytorch)
    """),
    code("""
    print(capstone.side_by_side(list(runs.values()), every=50))
    print(f"the model trained on your library: validation loss {runs[kit.name].validation_loss:.3f} after "
          f"{COMPARE_STEPS} steps (the grade's target after {STEPS} steps: {TARGET_LOSS}; trigram {trigram_loss:.3f})")
    """),
    md(r"""
    ### Your library, complete

    The pieces of your own minitorch, and whether each one is yours (it passes its public checks) or still
    minitorch's.
    """),
    code("""
    my_library("15_capstone")
    """),
    md(r"""
    ## Summary

    * A character-level language model predicts, at every position of a window, the next character; the targets are
      the inputs moved one character later (`get_batch`), and the loss is the cross-entropy over every position.
    * An embedding lookup is indexing; its backward **adds** each gradient row into the row of the table it came from
      (`index_add_`), so repeated ids accumulate.
    * Causal self-attention masks the scores of later positions with $-\infty$ before the softmax; a model that sees
      the future reaches a low loss by cheating, which the evaluation checks.
    * One transformer block (attention and an MLP, each with a layer norm and a residual connection), position
      vectors and a linear head, trained with AdamW for 1,000 steps on a CPU, beats the trigram baseline on text it
      has never seen.

    * Sampling draws from softmax(logits / temperature) by inverse transform: the temperature trades variety for
      accuracy.
    * The same model trains on your own library: your `Function.apply` records the graph, your engine runs it, your
      `AccumulateGrad` collects the gradients, your `Module`, loss, optimizer and attention do the rest, and the
      losses follow minitorch's and PyTorch's from the same start.
    """),
    code("""
    summary("ch15")
    """),
]

write("15_capstone", cells)
