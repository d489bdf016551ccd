"""Chapter 9: attention and transformers. Scaled dot-product attention, masks, multi-head attention, a transformer."""

from author import code, md, solution, tests, write

cells = [
    md(
        """
        # Chapter 9 · Attention and transformers

        In chapter 8 a recurrent network read a sequence one step at a time, carrying what it had seen in a hidden
        state. **Attention** takes another road: every position looks at every other position directly, and
        decides how much of each to take. Stacked into **transformers**, it is the layer behind today's language,
        vision and speech models.

        By the end of this chapter you will be able to:

        * compute scaled dot-product attention step by step, `softmax(Q K^T / sqrt(d)) V`, and say why it divides by
          `sqrt(d)` (`nn.functional.scaled_dot_product_attention`);
        * build the two masks every transformer uses: **causal** (no peeking at the future) and **padding**
          (ignore filler in short sequences), and avoid the trap of their opposite conventions;
        * explain what `nn.MultiheadAttention` computes, by reproducing its output by hand, then build it as a
          module that loads the library's weights and gives the same outputs;
        * read `nn.TransformerEncoderLayer` and `nn.Transformer`, and say why they need positional information;
        * train a tiny transformer to reverse sequences in a few seconds, and look at what its attention learned.

        Everything runs on the CPU in a few seconds.
        """
    ),
    code(
        """
        import math

        import matplotlib.pyplot as plt
        import numpy as np
        from threadpoolctl import threadpool_limits

        import minitorch
        import minitorch.nn.functional as F
        from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
        from minitorch import nn

        minitorch.manual_seed(0);
        """
    ),
    md(
        """
        ## 1. Attention is a soft dictionary lookup

        A Python dictionary maps a **key** to a **value**: you bring a **query**, the one key equal to it is found,
        and you get its value. Attention does the same, softly:

        1. compare the query with *every* key, giving a score per key (a dot product: large when they point the
           same way);
        2. turn the scores into weights that are positive and sum to 1 (a softmax);
        3. return the weighted average of the values.

        In a sequence model each position asks its own query, so for a sequence of length `L` attending to one of
        length `S` (often the same one: **self-attention**), the queries form a matrix `Q` of shape `(L, d)`, the
        keys `K` of shape `(S, d)` and the values `V` of shape `(S, d_v)`. All the comparisons are one matrix
        product:

        `attention(Q, K, V) = softmax(Q K^T / sqrt(d)) V`

        where the softmax runs along each row (over the keys). The result has one row per query: `(L, d_v)`.

        ## 2. Step by step

        A batch of one sequence of 4 positions, with 8 features per query, key and value:
        """
    ),
    code(
        """
        d = 8
        query = minitorch.randn(1, 4, d)      # (batch, L, d)
        key = minitorch.randn(1, 4, d)        # (batch, S, d)
        value = minitorch.randn(1, 4, d)      # (batch, S, d_v)

        scores = query @ key.transpose(-2, -1)          # (1, 4, 4): scores[b, i, j] = query i . key j
        scaled = scores / math.sqrt(d)
        weights = scaled.softmax(dim=-1)                # each row sums to 1
        output = weights @ value                        # (1, 4, 8): row i = sum_j weights[i, j] * value j

        print("scores:", tuple(scores.shape), " weights:", tuple(weights.shape), " output:", tuple(output.shape))
        print("row sums of the weights:", weights.sum(dim=-1))
        library = F.scaled_dot_product_attention(query, key, value)
        print("largest difference from nn.functional.scaled_dot_product_attention:",
              (output - library).abs().max().item())
        """
    ),
    code(
        """
        figure, axes = plt.subplots(1, 2, figsize=(8, 3.2))
        for axis, matrix, title in [(axes[0], scaled[0], "scaled scores"), (axes[1], weights[0], "attention weights")]:
            image = axis.imshow(matrix.detach().numpy(), cmap="viridis")
            axis.set(title=title, xlabel="key position j", ylabel="query position i", xticks=range(4), yticks=range(4))
            figure.colorbar(image, ax=axis, shrink=0.8)
        figure.tight_layout()
        plt.show()
        """
    ),
    md(
        """
        Each row of the right plot says where one query looks. The library version is in
        `minitorch/nn/functional/attention.py` (`scaled_dot_product_attention`): the same four lines, plus masks and
        dropout. Since it is made of ordinary tensor operations (`matmul`, `softmax`), autograd differentiates it
        like anything else; PyTorch additionally has fused kernels (FlashAttention) that compute the same numbers
        without ever storing the `L x S` weight matrix.

        ### Why divide by `sqrt(d)`?

        A dot product of two random vectors with `d` independent entries of variance 1 is a sum of `d` terms, so
        its standard deviation grows like `sqrt(d)`. With `d = 512` the scores are in the tens, and a softmax of
        such numbers is almost one-hot: one weight near 1, the rest near 0, and gradients near 0 everywhere.
        Dividing by `sqrt(d)` brings the scores back to standard deviation 1, whatever `d` is.
        """
    ),
    code(
        """
        print(f"{'d':>5} {'std of q.k':>11} {'std of q.k/sqrt(d)':>19} {'largest weight, unscaled':>25} {'scaled':>7}")
        for width in [4, 16, 64, 256, 1024]:
            q, k = minitorch.randn(200, width), minitorch.randn(200, width)
            raw = q @ k.T
            top_raw = raw.softmax(dim=-1).max(dim=-1).values.mean().item()
            top_scaled = (raw / math.sqrt(width)).softmax(dim=-1).max(dim=-1).values.mean().item()
            print(f"{width:>5} {raw.std().item():>11.2f} {(raw / math.sqrt(width)).std().item():>19.2f} "
                  f"{top_raw:>25.2f} {top_scaled:>7.2f}")
        """
    ),
    md(
        """
        Without scaling, the largest of 200 weights approaches 1 as `d` grows: the softmax saturates. With scaling
        it stays small, whatever the width: each query spreads its attention, and learning can move it.

        ## 3. Masks

        A mask says which keys a query may look at. Two are needed all the time.

        **Causal mask.** A model that predicts the next word must not see it. Query `i` may attend to keys
        `0..i` only: a lower-triangular pattern. Masked scores are set to `-inf` before the softmax, so their
        weights are exactly 0 and the other weights still sum to 1.

        `scaled_dot_product_attention` takes the mask three ways, all equivalent: `is_causal=True`; a **bool**
        mask where `True` means *may attend*; or a **float** mask that is *added* to the scores (`0` to keep,
        `-inf` to block), which is what `nn.Transformer.generate_square_subsequent_mask` makes.
        """
    ),
    code(
        """
        length = 5
        positions = minitorch.arange(length)
        may_attend = positions.unsqueeze(1) >= positions.unsqueeze(0)   # (5, 5) bool: key j <= query i
        float_mask = nn.Transformer.generate_square_subsequent_mask(length)
        print(may_attend)
        print(float_mask)

        q, k, v = minitorch.randn(1, length, d), minitorch.randn(1, length, d), minitorch.randn(1, length, d)
        with_flag = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        with_bool = F.scaled_dot_product_attention(q, k, v, attn_mask=may_attend)
        with_float = F.scaled_dot_product_attention(q, k, v, attn_mask=float_mask)
        print("the three agree:", bool(minitorch.allclose(with_flag, with_bool)),
              bool(minitorch.allclose(with_flag, with_float)))

        causal_weights = (q @ k.transpose(-2, -1) / math.sqrt(d)).masked_fill(may_attend.logical_not(), float("-inf"))
        causal_weights = causal_weights.softmax(dim=-1)
        plt.figure(figsize=(3.2, 3))
        plt.imshow(causal_weights[0].numpy(), cmap="viridis")
        plt.title("causal attention weights")
        plt.xlabel("key position j")
        plt.ylabel("query position i")
        plt.show()
        """
    ),
    md(
        """
        The first query sees only itself (weight 1); the last sees everything. A causal model can therefore be
        trained on every position of a sequence at once, each position predicting the next, without any position
        cheating.

        **Padding mask.** Sequences in a batch have different lengths, but a tensor is rectangular, so short
        sequences are filled up with a padding token. Queries must ignore padding keys. A padding mask depends on
        the sequence, not the position: shape `(batch, S)`, one flag per key. To use it with
        `scaled_dot_product_attention`, give it a dimension for the queries, `(batch, 1, S)`, and let broadcasting
        apply it to every query.
        """
    ),
    code(
        """
        lengths = minitorch.tensor([5, 3])                            # the second sequence has 2 padding positions
        is_padding = minitorch.arange(5).unsqueeze(0) >= lengths.unsqueeze(1)
        print("is_padding (True = filler):")
        print(is_padding)

        x = minitorch.randn(2, 5, d)
        keep = is_padding.logical_not().unsqueeze(1)                  # (2, 1, 5): True = may attend
        out = F.scaled_dot_product_attention(x, x, x, attn_mask=keep)
        weights = (x @ x.transpose(-2, -1) / math.sqrt(d)).masked_fill(keep.logical_not(), float("-inf")).softmax(-1)
        print("\\nweights of the second sequence: its last two keys get nothing")
        print(weights[1])
        """
    ),
    md(
        """
        > **The trap.** The bool masks of `scaled_dot_product_attention` say where attention is **allowed**
        > (`True` = take part). The bool masks of `nn.MultiheadAttention` and the `nn.Transformer*` classes
        > (`attn_mask`, `key_padding_mask`, `src_key_padding_mask`, ...) say where it is **blocked**
        > (`True` = ignore). These are PyTorch's conventions, and minitorch keeps them. Float masks are added to
        > the scores in both, so `generate_square_subsequent_mask` works everywhere. When a model trains but
        > looks at the wrong positions, check the mask's convention first.

        ## 4. Multi-head attention

        One attention layer mixes positions with one set of weights. **Multi-head** attention runs several
        attentions side by side, each on its own smaller projection of the features, so that one head can track,
        say, the previous token while another tracks a matching bracket:

        1. project the input into queries, keys and values with learned matrices: `Q = x W_q^T + b_q`, ...;
        2. cut the `E` features into `H` heads of `E / H` features: shape `(batch, L, E)` becomes
           `(batch, H, L, E/H)`;
        3. run scaled dot-product attention in every head at once (the head dimension is just another batch
           dimension);
        4. put the heads side by side again, `(batch, L, E)`, and mix them with an output projection.

        `nn.MultiheadAttention(embed_dim, num_heads)` holds the three input projections stacked in one
        parameter, `in_proj_weight` of shape `(3E, E)`, and the output projection `out_proj` (a `Linear`).
        Like PyTorch's, it expects `(L, batch, E)` unless `batch_first=True`, and returns the output and the
        attention weights (averaged over heads unless `average_attn_weights=False`).
        """
    ),
    code(
        """
        attention = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
        for name, parameter in attention.named_parameters():
            print(f"{name:>20}: {tuple(parameter.shape)}")

        output, averaged = attention(x, x, x, key_padding_mask=is_padding)   # True = padding, ignored
        print("\\noutput:", tuple(output.shape), " weights averaged over heads:", tuple(averaged.shape))
        """
    ),
    md(
        """
        Now the same computation by hand, with nothing but the four steps above and the module's own weights. If
        the numbers match, we know exactly what the module does:
        """
    ),
    code(
        """
        batch, length, embed = x.shape
        heads = attention.num_heads
        w_q, w_k, w_v = attention.in_proj_weight.chunk(3, dim=0)
        b_q, b_k, b_v = attention.in_proj_bias.chunk(3, dim=0)

        def split(t):          # (batch, L, E) -> (batch, H, L, E/H)
            return t.view(batch, length, heads, embed // heads).transpose(1, 2)

        Q, K, V = split(F.linear(x, w_q, b_q)), split(F.linear(x, w_k, b_k)), split(F.linear(x, w_v, b_v))
        per_head = F.scaled_dot_product_attention(Q, K, V, attn_mask=keep.unsqueeze(1))   # keep: (2, 1, 1, 5)
        merged = per_head.transpose(1, 2).reshape(batch, length, embed)
        by_hand = attention.out_proj(merged)
        print("largest difference from nn.MultiheadAttention:", (by_hand - output).abs().max().item())
        """
    ),
    md(
        """
        Note the flip between the two masks: the module took `is_padding` (`True` = ignore) and
        `scaled_dot_product_attention` took `keep` (`True` = attend). The module's code is in
        `minitorch/nn/modules/attention.py` and `nn.functional.multi_head_attention_forward`
        (`minitorch/nn/functional/attention.py`), which does these steps with every option (separate key and value
        sizes, extra bias keys, dropout on the weights). Exercises 3 and 4 ask you to write the split and the merge.

        ## 5. Transformer layers

        A **transformer encoder layer** wraps self-attention and a small two-layer network (the *feed-forward*
        block, applied to each position separately), each with a residual connection and a layer norm:

        ```
        x = norm1(x + self_attention(x))         # positions exchange information
        x = norm2(x + feed_forward(x))           # each position thinks on its own
        ```

        (`norm_first=True` moves the norms before each block, "pre-norm", which trains deep stacks more easily.)
        `nn.TransformerEncoder(layer, num_layers)` stacks independent copies; `nn.Transformer` joins an encoder
        and a decoder, whose layers add a second attention, over the encoder's output, for tasks like translation.
        The source is `minitorch/nn/modules/transformer.py`, with PyTorch's parameter names so weights move between
        the two.
        """
    ),
    code(
        """
        layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
        print(layer)
        print("parameters:", sum(p.numel() for p in layer.parameters()))

        encoder = nn.TransformerEncoder(layer, num_layers=2)
        print("encoder output:", tuple(encoder(x, src_key_padding_mask=is_padding).shape))

        transformer = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                     dim_feedforward=16, dropout=0.0, batch_first=True)
        source, target = minitorch.randn(2, 7, 8), minitorch.randn(2, 5, 8)
        decoded = transformer(source, target, tgt_mask=nn.Transformer.generate_square_subsequent_mask(5))
        print("nn.Transformer: source", tuple(source.shape), "+ target", tuple(target.shape),
              "->", tuple(decoded.shape))
        """
    ),
    md(
        """
        ### Attention does not know the order

        Shuffle the positions of the input, and a transformer layer's output is shuffled the same way, and
        otherwise unchanged: attention compares contents, never places. For a bag of words that is fine; for a
        sentence ("dog bites man" against "man bites dog") it is not. Transformers therefore add a **positional
        encoding** to the input: a vector per position, either learned (an `nn.Embedding` of positions) or fixed
        sinusoids of different frequencies (exercise 5).
        """
    ),
    code(
        """
        shuffle = minitorch.tensor([3, 0, 4, 1, 2])
        sequence = minitorch.randn(1, 5, 8)
        first_then_shuffle = layer(sequence)[:, shuffle]
        shuffle_then_layer = layer(sequence[:, shuffle])
        print("layer(x)[shuffle] == layer(x[shuffle]):",
              bool(minitorch.allclose(first_then_shuffle, shuffle_then_layer, atol=1e-5)))
        """
    ),
    md(
        """
        ## 6. A tiny transformer that reverses sequences

        The task: read 8 digits and output them in reverse order (`3 1 4 1 5 9 2 6` gives `6 2 9 5 1 4 1 3`).
        Output position `i` must find input position `7 - i` and copy its token: a job for attention, as long as
        the model knows positions.

        The model is one encoder layer between an embedding and a classifier: each digit becomes a vector
        (`nn.Embedding(10, 32)`), plus a learned vector for its position; the layer mixes positions; a `Linear`
        scores the 10 possible digits at each position, trained with cross-entropy. Fresh random sequences every
        step mean there is nothing to memorise: the model must learn the rule.

        One practical detail: NumPy hands matrix products to a BLAS library that may split each one across several
        threads. For matrices this small, waking and synchronising the threads costs more than the arithmetic (and
        on a busy machine a thread may wait a long time for a free core), so training runs with BLAS limited to one
        thread, using `threadpoolctl` (which scikit-learn installs). PyTorch makes a similar call internally: below a
        minimum amount of work, its parallel loops run on one thread.
        """
    ),
    code(
        """
        VOCABULARY, LENGTH, WIDTH = 10, 8, 32
        generator = np.random.default_rng(0)

        def reversal_batch(size):
            digits = generator.integers(0, VOCABULARY, (size, LENGTH))
            return minitorch.tensor(digits), minitorch.tensor(digits[:, ::-1].copy())


        class Reverser(nn.Module):
            def __init__(self, use_positions=True):
                super().__init__()
                self.use_positions = use_positions
                self.tokens = nn.Embedding(VOCABULARY, WIDTH)
                self.positions = nn.Embedding(LENGTH, WIDTH)
                self.block = nn.TransformerEncoderLayer(WIDTH, nhead=2, dim_feedforward=64, dropout=0.0,
                                                        batch_first=True)
                self.classify = nn.Linear(WIDTH, VOCABULARY)

            def embed(self, digits):
                vectors = self.tokens(digits)                                  # (batch, LENGTH, WIDTH)
                if self.use_positions:
                    vectors = vectors + self.positions(minitorch.arange(digits.shape[1]))
                return vectors

            def forward(self, digits):
                return self.classify(self.block(self.embed(digits)))          # (batch, LENGTH, VOCABULARY)


        def train(model, steps=200):
            optimizer = minitorch.optim.Adam(model.parameters(), lr=3e-3)
            losses = []
            with threadpool_limits(limits=1):          # tiny matrices: one BLAS thread is fastest (see above)
                for _ in range(steps):
                    digits, reversed_digits = reversal_batch(64)
                    scores = model(digits)
                    loss = F.cross_entropy(scores.reshape(-1, VOCABULARY), reversed_digits.reshape(-1))
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
                    losses.append(loss.item())
            return losses


        def accuracy(model):
            digits, reversed_digits = reversal_batch(500)
            with minitorch.no_grad():
                predicted = model(digits).argmax(dim=-1)
            return (predicted == reversed_digits).float().mean().item()


        minitorch.manual_seed(0)
        model = Reverser()
        losses = train(model)
        print(f"digits right: {accuracy(model):.1%}")
        """
    ),
    md(
        """
        Now the same model **without** positional embeddings, trained the same way. It cannot tell position 0 from
        position 7, so it gives every position the same answer: the best it can do is guess a digit that appears
        in the sequence.
        """
    ),
    code(
        """
        minitorch.manual_seed(0)
        blind = Reverser(use_positions=False)
        blind_losses = train(blind)
        print(f"without positions, digits right: {accuracy(blind):.1%}")

        plt.figure(figsize=(6, 3))
        plt.plot(losses, label="with positional embeddings")
        plt.plot(blind_losses, label="without")
        plt.yscale("log")
        plt.xlabel("training step")
        plt.ylabel("cross-entropy")
        plt.legend()
        plt.show()
        """
    ),
    md(
        """
        What did the trained layer learn? Ask its attention module for the weights of every head
        (`need_weights=True, average_attn_weights=False`) on one sequence:
        """
    ),
    code(
        """
        digits, _ = reversal_batch(1)
        with minitorch.no_grad():
            vectors = model.embed(digits)
            output, head_weights = model.block.self_attn(vectors, vectors, vectors, need_weights=True,
                                                         average_attn_weights=False)
            predicted = model(digits).argmax(dim=-1)
        print("input:    ", digits[0].tolist())
        print("predicted:", predicted[0].tolist())

        figure, axes = plt.subplots(1, head_weights.shape[1], figsize=(7, 3.2))
        for head, axis in enumerate(axes):
            axis.imshow(head_weights[0, head].numpy(), cmap="viridis", vmin=0, vmax=1)
            axis.set(title=f"head {head}", xlabel="input position (key)", ylabel="output position (query)")
        figure.tight_layout()
        plt.show()
        """
    ),
    md(
        """
        The anti-diagonal is the reversal rule: output position `i` looks at input position `7 - i`, and nowhere
        else. Nobody wrote that rule; gradient descent found it in 200 steps, through the positional
        embeddings. That is the whole trick of transformers, scaled up: attention decides where to look, the
        feed-forward blocks decide what to do with what they found.

        ## 7. Exercises

        Six pieces of a transformer, from scratch, the first and the last as the library has them. Use tensor
        operations only (no Python loop over positions), and do not call `scaled_dot_product_attention` or
        `nn.MultiheadAttention`: the checks compare your results with them, and when your notebook is graded they are
        switched off. `hint("<exercise>")` gives hints step by step.

        ### Exercise 1 · attention (build it)

        Write `attention(query, key, value, mask, is_causal)`, the computation of `F.scaled_dot_product_attention`:
        `softmax(Q K^T / sqrt(d) + masks) V` for `query` of shape `(..., L, d)`, `key` `(..., S, d)` and `value`
        `(..., S, d_v)`, where `d` is the query's last dimension and `...` is any number of batch dimensions (heads,
        say). `mask` is `None`, or a tensor that broadcasts to `(..., L, S)`, with the two meanings
        `scaled_dot_product_attention` gives it (section 3):

        * a **bool** mask is `True` where a query **may** attend; blocked scores become `-inf` before the softmax;
        * a **float** mask is **added** to the scores.

        `is_causal=True` (never together with a mask) lets query `i` see keys `0 .. i` only, also when `L` and `S`
        differ. Every query has at least one key it may see. The cell after the check compares your function with
        the library's on a batch of heads.
        """
    ),
    solution(
        '''
        def attention(query, key, value, mask, is_causal):
            """Scaled dot-product attention; mask is None, bool (True = may attend) or float (added)."""
            ### BEGIN SOLUTION
            scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
            if is_causal:
                length, source_length = scores.shape[-2], scores.shape[-1]
                future = minitorch.arange(source_length).unsqueeze(0) > minitorch.arange(length).unsqueeze(1)
                scores = scores.masked_fill(future, float("-inf"))
            if mask is not None and mask.dtype == minitorch.bool:
                scores = scores.masked_fill(mask.logical_not(), float("-inf"))
            elif mask is not None:
                scores = scores + mask
            return scores.softmax(dim=-1) @ value
            ### END SOLUTION
        ''',
        "attention",
    ),
    tests(
        """
        check("ch09.attention", attention)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch09.attention", attention, [
            (randn(3, 2, 16, seed=910), randn(3, 7, 16, seed=911), randn(3, 7, 5, seed=912), None, False),
            (randn(6, 6, seed=913), randn(6, 6, seed=914), randn(6, 6, seed=915), np.tril(np.ones((6, 6), dtype=bool)),
             False),
            (randn(2, 2, 3, 4, seed=916), randn(2, 2, 4, 4, seed=917), randn(2, 2, 4, 4, seed=918),
             np.array([True, True, False, True]), False),
            (randn(2, 3, 6, 8, seed=919), randn(2, 3, 6, 8, seed=920), randn(2, 3, 6, 5, seed=921), None, True),
            (randn(1, 2, 5, 4, seed=922), randn(1, 2, 2, 4, seed=923), randn(1, 2, 2, 3, seed=924), None, True),
            (randn(2, 4, 4, seed=925), randn(2, 6, 4, seed=926), randn(2, 6, 4, seed=927),
             np.where(np.arange(6) < 4, 0.0, -np.inf).astype(np.float32) + randn(2, 4, 6, seed=928), False),
        ])
        ### END HIDDEN TESTS
        """,
        "test_attention",
    ),
    code(
        """
        # Your attention against the library's, on 2 sequences x 4 heads, causal: the difference should be ~1e-7.
        q, k, v = minitorch.randn(2, 4, 6, 8), minitorch.randn(2, 4, 6, 8), minitorch.randn(2, 4, 6, 8)
        try:
            for name, mask, causal in [("causal", None, True), ("float mask", minitorch.randn(6, 6), False)]:
                library = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal)
                difference = (attention(q, k, v, mask, causal) - library).abs().max().item()
                print(f"{name}: largest difference from F.scaled_dot_product_attention {difference:.1e}")
        except NotImplementedError:
            print("attention is not written yet: do exercise 1, then run this cell again.")
        """
    ),
    md(
        """
        ### Exercise 2 · a causal mask

        Write `causal_mask(size)`: a bool tensor of shape `(size, size)` that is `True` where query `i` may attend
        to key `j`, that is where `j <= i`. Build it from `minitorch.arange` and a comparison (broadcast a column
        against a row), not from a loop.
        """
    ),
    solution(
        '''
        def causal_mask(size):
            """(size, size) bool: True on and below the diagonal (key j <= query i)."""
            ### BEGIN SOLUTION
            positions = minitorch.arange(size)
            return positions.unsqueeze(1) >= positions.unsqueeze(0)
            ### END SOLUTION
        ''',
        "causal_mask",
    ),
    tests(
        """
        check("ch09.causal_mask", causal_mask)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch09.causal_mask", causal_mask, [(2,), (7,), (16,)])
        ### END HIDDEN TESTS
        """,
        "test_causal_mask",
    ),
    md(
        """
        ### Exercise 3 · splitting into heads

        Write `split_heads(x, num_heads)`: `x` has shape `(batch, length, embed)`, and `embed` is divisible by
        `num_heads`. Return shape `(batch, num_heads, length, embed // num_heads)`, where head `h` holds features
        `h * embed // num_heads` up to `(h + 1) * embed // num_heads` of every position (the split of section 4).
        Careful: `x.view(batch, num_heads, length, ...)` has the right shape and the wrong numbers.
        """
    ),
    solution(
        '''
        def split_heads(x, num_heads):
            """(batch, length, embed) -> (batch, num_heads, length, embed // num_heads)."""
            ### BEGIN SOLUTION
            batch, length, embed = x.shape
            return x.view(batch, length, num_heads, embed // num_heads).transpose(1, 2)
            ### END SOLUTION
        ''',
        "split_heads",
    ),
    tests(
        """
        check("ch09.split_heads", split_heads)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch09.split_heads", split_heads, [
            (randn(3, 4, 12, seed=930), 4),
            (randn(1, 1, 6, seed=931), 3),
            (randn(2, 5, 16, seed=932), 8),
        ])
        ### END HIDDEN TESTS
        """,
        "test_split_heads",
    ),
    md(
        """
        ### Exercise 4 · merging the heads

        Write `merge_heads(x)`, the inverse of `split_heads`: `x` has shape `(batch, num_heads, length, head_dim)`;
        return `(batch, length, num_heads * head_dim)`, the heads side by side for each position. (A `view` after a
        `transpose` fails, because the transposed tensor is not contiguous in memory; `reshape` copies when it
        must.)
        """
    ),
    solution(
        '''
        def merge_heads(x):
            """(batch, num_heads, length, head_dim) -> (batch, length, num_heads * head_dim)."""
            ### BEGIN SOLUTION
            batch, num_heads, length, head_dim = x.shape
            return x.transpose(1, 2).reshape(batch, length, num_heads * head_dim)
            ### END SOLUTION
        ''',
        "merge_heads",
    ),
    tests(
        """
        check("ch09.merge_heads", merge_heads)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch09.merge_heads", merge_heads, [
            (randn(3, 4, 5, 3, seed=940),),
            (randn(1, 1, 1, 7, seed=941),),
            (randn(2, 8, 3, 2, seed=942),),
        ])
        ### END HIDDEN TESTS
        """,
        "test_merge_heads",
    ),
    md(
        """
        ### Exercise 5 · sinusoidal positional encoding

        The original transformer gives position `p` a fixed vector of sines and cosines at `d_model / 2`
        frequencies, from fast (one cycle every 6 positions or so) to very slow:

        `PE[p, 2i] = sin(p / 10000^(2i / d_model))`, `PE[p, 2i + 1] = cos(p / 10000^(2i / d_model))`

        for `i = 0, 1, ..., d_model/2 - 1`. Nearby positions get similar vectors, and a fixed offset is a
        rotation, which attention can learn to use. Write `positional_encoding(length, d_model)`: a `float32`
        tensor of shape `(length, d_model)` (`d_model` is even). One way: compute all the angles at once as an
        outer product of positions and frequencies, then interleave sines and cosines (`minitorch.stack(..., dim=-1)`
        then `reshape`).
        """
    ),
    solution(
        '''
        def positional_encoding(length, d_model):
            """(length, d_model) float32: sines at even features, cosines at odd ones."""
            ### BEGIN SOLUTION
            positions = minitorch.arange(length, dtype=minitorch.float32).unsqueeze(1)          # (length, 1)
            frequencies = 10000.0 ** (-minitorch.arange(0, d_model, 2, dtype=minitorch.float32) / d_model)
            angles = positions * frequencies                                                  # (length, d_model / 2)
            return minitorch.stack([angles.sin(), angles.cos()], dim=-1).reshape(length, d_model)
            ### END SOLUTION
        ''',
        "positional_encoding",
    ),
    tests(
        """
        check("ch09.positional_encoding", positional_encoding)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch09.positional_encoding", positional_encoding, [(1, 2), (50, 16), (7, 64)])
        ### END HIDDEN TESTS
        """,
        "test_positional_encoding",
    ),
    md(
        """
        A picture of your encoding makes its structure plain: fast stripes on the left (high frequencies), slow
        ones on the right. (This cell draws it once your function works.)
        """
    ),
    code(
        """
        try:
            encoding = positional_encoding(64, 32)
            plt.figure(figsize=(6, 3))
            plt.imshow(encoding.numpy().T, aspect="auto", cmap="RdBu")
            plt.xlabel("position p")
            plt.ylabel("feature")
            plt.colorbar()
            plt.show()
        except NotImplementedError:
            print("positional_encoding is not written yet: do exercise 5, then run this cell again.")
        """
    ),
    md(
        """
        ### Exercise 6 · multi-head attention as a module (build it)

        Put it all together: write `MyMultiheadAttention(embed_dim, num_heads, batch_first=False)`, an `nn.Module`
        that computes what `nn.MultiheadAttention` computes (section 4), with **its parameter names**, so that the
        library's `state_dict()` loads into yours: `in_proj_weight` `(3E, E)` (query, key and value projections
        stacked in that order), `in_proj_bias` `(3E,)`, and `out_proj`, an `nn.Linear(E, E)`.

        `forward(query, key, value, key_padding_mask=None, attn_mask=None)` takes inputs of shape `(L, batch, E)`
        for the queries and `(S, batch, E)` for the keys and values, or `(batch, L, E)` and `(batch, S, E)` with
        `batch_first=True`, and returns `(output, weights)`: the output shaped like the query, and the attention
        weights **averaged over the heads**, `(batch, L, S)`, as the library returns them by default. The masks
        follow the module's convention, the opposite of exercise 1's (section 3's trap):

        * `key_padding_mask` `(batch, S)`, bool, `True` = ignore that key;
        * `attn_mask` `(L, S)`, bool with `True` = blocked, or float, added to the scores.

        The function `multihead_attention` below the class is what the check calls: it builds your module, loads a
        case's weights with `load_state_dict` (the library's names) and calls it. Your `split_heads` and
        `merge_heads` are welcome inside. The cell after the check compares your module with
        `nn.MultiheadAttention`, its `state_dict` loaded into yours.
        """
    ),
    solution(
        '''
        class MyMultiheadAttention(nn.Module):
            """nn.MultiheadAttention's parameters and forward: returns (output, weights averaged over the heads)."""

            def __init__(self, embed_dim, num_heads, batch_first=False):
                super().__init__()
                ### BEGIN SOLUTION
                self.num_heads, self.batch_first = num_heads, batch_first
                self.in_proj_weight = nn.Parameter(minitorch.empty(3 * embed_dim, embed_dim))
                self.in_proj_bias = nn.Parameter(minitorch.zeros(3 * embed_dim))
                self.out_proj = nn.Linear(embed_dim, embed_dim)
                nn.init.xavier_uniform_(self.in_proj_weight)
                ### END SOLUTION

            def forward(self, query, key, value, key_padding_mask=None, attn_mask=None):
                ### BEGIN SOLUTION
                if not self.batch_first:
                    query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
                weight_q, weight_k, weight_v = self.in_proj_weight.chunk(3, dim=0)
                bias_q, bias_k, bias_v = self.in_proj_bias.chunk(3)
                heads_q = split_heads(F.linear(query, weight_q, bias_q), self.num_heads)
                heads_k = split_heads(F.linear(key, weight_k, bias_k), self.num_heads)
                heads_v = split_heads(F.linear(value, weight_v, bias_v), self.num_heads)
                scores = heads_q @ heads_k.transpose(-2, -1) / math.sqrt(heads_q.shape[-1])
                padding = None if key_padding_mask is None else key_padding_mask[:, None, None, :]
                for blocked in (attn_mask, padding):
                    if blocked is not None and blocked.dtype == minitorch.bool:
                        scores = scores.masked_fill(blocked, float("-inf"))
                    elif blocked is not None:
                        scores = scores + blocked
                weights = scores.softmax(dim=-1)                        # (batch, heads, L, S)
                output = self.out_proj(merge_heads(weights @ heads_v))
                if not self.batch_first:
                    output = output.transpose(0, 1)
                return output, weights.mean(dim=1)
                ### END SOLUTION


        def multihead_attention(query, key, value, in_proj_weight, in_proj_bias, out_proj_weight, out_proj_bias,
                                num_heads, batch_first, key_padding_mask, attn_mask):
            """What the check calls: your module with a case's weights, loaded under nn.MultiheadAttention's names."""
            module = MyMultiheadAttention(query.shape[-1], num_heads, batch_first=batch_first)
            module.load_state_dict({"in_proj_weight": in_proj_weight, "in_proj_bias": in_proj_bias,
                                    "out_proj.weight": out_proj_weight, "out_proj.bias": out_proj_bias})
            return module(query, key, value, key_padding_mask=key_padding_mask, attn_mask=attn_mask)
        ''',
        "multihead_attention",
    ),
    tests(
        """
        check("ch09.multihead_attention", multihead_attention)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)
        from grading.exercises.ch09 import _attention_case, _padding  # noqa: E402

        check_hidden("ch09.multihead_attention", multihead_attention, [
            _attention_case((4, 3, 6), 4, 6, False, seed=9500, self_attention=True,
                            key_padding_mask=_padding([4, 1, 2], 4), attn_mask=np.triu(np.ones((4, 4), bool), k=1)),
            _attention_case((1, 2, 12), 7, 4, True, seed=9510, key_padding_mask=_padding([6], 7)),
            _attention_case((3, 5, 4), 2, 2, False, seed=9520, attn_mask=randn(3, 2, seed=9525)),
        ])
        ### END HIDDEN TESTS
        """,
        "test_multihead_attention",
        points=4,
    ),
    code(
        """
        # Your module against nn.MultiheadAttention, the library's state_dict loaded into yours: differences ~1e-7.
        library_attention = nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True)
        x = minitorch.randn(2, 5, 8)
        is_padding = minitorch.tensor([[False] * 5, [False, False, False, True, True]])      # True = padding
        causal_blocked = minitorch.arange(5).unsqueeze(0) > minitorch.arange(5).unsqueeze(1)   # True = blocked
        try:
            mine = MyMultiheadAttention(8, 2, batch_first=True)
            mine.load_state_dict(library_attention.state_dict())
            with minitorch.no_grad():
                expected_output, expected_weights = library_attention(x, x, x, key_padding_mask=is_padding,
                                                                      attn_mask=causal_blocked)
                my_output, my_weights = mine(x, x, x, key_padding_mask=is_padding, attn_mask=causal_blocked)
            print(f"output:  largest difference {(my_output - expected_output).abs().max().item():.1e}")
            print(f"weights: largest difference {(my_weights - expected_weights).abs().max().item():.1e}")
        except NotImplementedError:
            print("MyMultiheadAttention is not written yet: do exercise 6, then run this cell again.")
        """
    ),
    md(
        """
        ### Your library so far

        The pieces of your own minitorch, and whether each one is yours (it passes its public checks) or still
        minitorch's. The capstone takes your `attention` from this notebook once it is saved, so save it before
        moving on.
        """
    ),
    code(
        """
        from grading.library import my_library

        my_library("09_attention")
        """
    ),
    md(
        """
        ## Summary

        * Attention is a soft lookup: `softmax(Q K^T / sqrt(d)) V`. Each query takes a weighted average of the
          values, weighted by how well it matches each key. Dividing by `sqrt(d)` keeps the softmax from saturating.
        * Masks set blocked scores to `-inf`. Causal masks hide the future (lower triangle); padding masks hide
          filler keys, one flag per key. Bool masks mean *allowed* in `scaled_dot_product_attention` and
          *blocked* in `nn.MultiheadAttention` / `nn.Transformer*`; float masks are added in both.
        * Multi-head attention projects, splits the features into heads, attends in every head at once, merges the
          heads and projects again; `nn.MultiheadAttention` is exactly that (`minitorch/nn/modules/attention.py`).
        * A transformer layer is self-attention plus a feed-forward block, each with a residual connection and a
          layer norm. Attention ignores order, so positions are added to the input (learned or sinusoidal).
        * A one-layer transformer learns to reverse sequences in seconds, and its attention weights show the rule
          it found.

        Next: chapter 10 reuses trained models. Run the last cell to see which exercises pass.
        """
    ),
    code(
        """
        summary("ch09")
        """
    ),
]

write("09_attention", cells)
