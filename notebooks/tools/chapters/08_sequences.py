"""Chapter 8: sequences (embeddings and their sparse gradients; RNN, LSTM and GRU, gates, a memory task)."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 8. Sequences: embeddings and recurrent networks

    Text, audio, prices and sensor readings arrive as *sequences*: the order carries meaning, and the length varies.
    This chapter covers the two building blocks PyTorch offers for them before attention (chapter 9): **embeddings**,
    which turn symbols into vectors, and **recurrent layers**, which read a sequence one step at a time while carrying
    a memory.

    By the end of it you will be able to:

    * use `nn.Embedding` as a trainable lookup table and explain why its gradient is *sparse* (only the rows you looked
      up change);
    * write one step of an RNN, an LSTM and a GRU cell from their equations, with PyTorch's weight layout and gate
      order, and use `nn.RNN`, `nn.LSTM` and `nn.GRU` on whole sequences;
    * backpropagate through time by hand: an LSTM's backward pass over a sequence, equal to autograd's;
    * explain what the gates are for, by measuring how much gradient reaches the early steps of a sequence;
    * train the three layers on a memory task where the plain RNN fails and the gated layers succeed;
    * batch sequences of different lengths with padding and packing.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    import minitorch.optim as optim
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)

    minitorch.manual_seed(0)
    """),
    md(r"""
    ## 1. Embeddings: a table of learned vectors

    A model cannot multiply the word "cat" by a weight matrix. It can, however, give each of the `V` symbols of a
    vocabulary an id `0 ... V-1` and keep a table with one learned vector per id: an `nn.Embedding(V, d)` holds a
    weight of shape `(V, d)`, and looking up ids returns their rows. Ids of any shape go in; each id becomes a vector,
    so the output has shape `ids.shape + (d,)`.

    The lookup is the same as multiplying a *one-hot* vector (all zeros, a 1 at the id) by the table, but without ever
    building the one-hot vectors: with a vocabulary of 50,000 words that saves a 50,000-wide matrix product per token.
    The module is in `minitorch/nn/modules/sparse.py`; it calls `F.embedding`, which runs the `Embedding` op of
    `minitorch/ops/nn_ops.py`: forward indexes the table, and backward adds each incoming gradient row into the row
    of the table it came from.
    """),
    code("""
    table = nn.Embedding(num_embeddings=6, embedding_dim=3)
    ids = minitorch.tensor([[1, 4, 4], [0, 2, 5]])          # a batch of 2 sequences of 3 ids
    vectors = table(ids)
    print("ids", tuple(ids.shape), "-> vectors", tuple(vectors.shape))
    print("row 4 of the table:", table.weight[4].detach())
    print("vectors[0, 1]:     ", vectors[0, 1].detach())

    one_hot = F.one_hot(ids, num_classes=6).float()          # (2, 3, 6): mostly zeros
    print("same as one_hot @ weight:", minitorch.allclose(one_hot @ table.weight, vectors))
    """),
    md(r"""
    `padding_idx` reserves an id for padding (filling short sequences up to the batch's length): its row starts at 0
    and never receives a gradient.

    ### Sparse gradients: only the rows you looked up

    The table's gradient has the table's shape, but a batch only touches a few rows; every other row's gradient is
    exactly 0. A row looked up twice gets the sum of both gradients.
    """),
    code("""
    table = nn.Embedding(8, 3)
    ids = minitorch.tensor([2, 5, 2])                       # row 2 twice, row 5 once
    table(ids).sum().backward()                             # each looked-up vector gets gradient 1 in every entry
    print(table.weight.grad)
    print("rows with a non-zero gradient:", table.weight.grad.abs().sum(dim=1).nonzero().flatten().tolist())
    """),
    md(r"""
    With plain SGD, $p \leftarrow p - \eta g$, a zero gradient means no change: **only the looked-up rows move**. With
    momentum or Adam that is no longer true: a row's running averages remember earlier batches, so a row keeps moving
    after it was last used. Below, batch 1 uses rows 0 and 1, batch 2 uses row 3 only; which rows did the second step
    change?
    """),
    code("""
    def rows_changed_by_second_step(make_optimizer):
        minitorch.manual_seed(0)
        table = nn.Embedding(6, 4)
        optimizer = make_optimizer(table.parameters())
        for ids in [[0, 1], [3]]:
            before = table.weight.detach().clone()
            optimizer.zero_grad()
            table(minitorch.tensor(ids)).pow(2).sum().backward()
            optimizer.step()
        changed = (table.weight.detach() != before).any(dim=1)
        return changed.nonzero().flatten().tolist()

    print("SGD :", rows_changed_by_second_step(lambda params: optim.SGD(params, lr=0.1)))
    print("Adam:", rows_changed_by_second_step(lambda params: optim.Adam(params, lr=0.1)))
    """),
    md(r"""
    For a vocabulary of a million ids, storing and updating a full-size gradient for a batch that touches a few
    hundred rows is wasteful. That is what `nn.Embedding(..., sparse=True)` is for in PyTorch: `weight.grad` becomes a
    *sparse* tensor listing only the touched rows and their gradients, and optimizers that accept it (`optim.SGD`,
    `optim.SparseAdam`, `optim.Adagrad`) update only those rows. minitorch accepts `sparse=True` so that code runs
    unchanged, but it has no sparse tensors: it stores the same numbers as an ordinary dense gradient, zeros included.

    ### Exercise 1: an embedding lookup

    Write `embedding_lookup(weight, indices)`: the rows of `weight` (shape `(V, d)`) picked by the integer tensor
    `indices` (any shape), giving shape `indices.shape + (d,)`. Without `nn.Embedding` or `F.embedding`.
    """),
    solution('''
    def embedding_lookup(weight, indices):
        """Row indices[...] of weight for every id: shape indices.shape + (embedding_dim,)."""
        ### BEGIN SOLUTION
        return weight[indices]
        ### END SOLUTION
    ''', "ch08-embedding-lookup"),
    tests("""
    check("ch08.embedding_lookup", embedding_lookup)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch08.embedding_lookup", embedding_lookup, [
        (randn(20, 6, seed=8101), np.random.default_rng(8102).integers(0, 20, size=(3, 4, 2))),
        (randn(3, 2, seed=8103), np.array([2, 2, 0, 1, 2])),
        (randn(5, 1, seed=8104), np.array(4)),
    ])
    ### END HIDDEN TESTS
    """, "ch08-embedding-lookup-tests", points=1),
    md(r"""
    ## 2. Recurrent networks: a loop with a memory

    A recurrent layer reads the sequence $x_1, x_2, \dots, x_T$ one step at a time and keeps a **hidden state** $h_t$,
    a vector that summarises what it has seen so far. Every step applies the *same* weights:

    $$h_t = \tanh\left(x_t W_{ih}^\top + b_{ih} + h_{t-1} W_{hh}^\top + b_{hh}\right), \qquad h_0 = 0 .$$

    `nn.RNN(input_size, hidden_size)` holds `weight_ih_l0` (hidden, input), `weight_hh_l0` (hidden, hidden) and the two
    biases (`l0`: layer 0; `num_layers=2` stacks a second RNN on the first one's outputs). It takes inputs shaped
    `(time, batch, features)`, or `(batch, time, features)` with `batch_first=True`, and returns two things: `output`,
    every step's $h_t$, and `h_n`, the last hidden state of every layer. Because the weights are shared across steps,
    one layer handles sequences of any length.

    The layers are in `minitorch/nn/modules/rnn.py`, the math in `nn/functional/recurrent.py`, and the fused LSTM
    and GRU loops (forward through time, and backward through time in reverse) in `minitorch/ops/recurrent.py`. Let
    us check the formula against `nn.RNN` by unrolling the loop by hand:
    """),
    code("""
    rnn = nn.RNN(input_size=3, hidden_size=5, batch_first=True)
    sequence = minitorch.randn(2, 4, 3)                    # 2 sequences, 4 steps, 3 features
    output, h_n = rnn(sequence)
    print("output", tuple(output.shape), " h_n", tuple(h_n.shape))

    h = minitorch.zeros(2, 5)
    for t in range(4):
        x_t = sequence[:, t]
        h = minitorch.tanh(x_t @ rnn.weight_ih_l0.T + rnn.bias_ih_l0 + h @ rnn.weight_hh_l0.T + rnn.bias_hh_l0)
    print("the loop by hand gives the last state:", minitorch.allclose(h, h_n[0], atol=1e-6))
    print("and output[:, -1] is h_n:", minitorch.allclose(output[:, -1], h_n[0]))
    """),
    md(r"""
    ### Exercise 2: one RNN step

    Write `rnn_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh)` returning the next hidden state for a batch:
    `x` is `(batch, input_size)`, `h` is `(batch, hidden_size)`, the weights and biases are shaped as in `nn.RNNCell`.
    """),
    solution('''
    def rnn_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
        """h_new = tanh(x @ weight_ih.T + bias_ih + h @ weight_hh.T + bias_hh)."""
        ### BEGIN SOLUTION
        return minitorch.tanh(x @ weight_ih.T + bias_ih + h @ weight_hh.T + bias_hh)
        ### END SOLUTION
    ''', "ch08-rnn-cell"),
    tests("""
    check("ch08.rnn_cell", rnn_cell)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch08.rnn_cell", rnn_cell, [
        (randn(3, 2, seed=8201), randn(3, 6, seed=8202), randn(6, 2, seed=8203, scale=0.5),
         randn(6, 6, seed=8204, scale=0.5), randn(6, seed=8205), randn(6, seed=8206)),
        (randn(1, 7, seed=8207), randn(1, 1, seed=8208), randn(1, 7, seed=8209), randn(1, 1, seed=8210),
         randn(1, seed=8211), randn(1, seed=8212)),
    ])
    ### END HIDDEN TESTS
    """, "ch08-rnn-cell-tests", points=2),
    md(r"""
    ## 3. Gates: the LSTM and the GRU

    Training an RNN means backpropagating through all its steps. The gradient that reaches step $t$ from step $T$ has
    been multiplied by $T - t$ Jacobians $\partial h_{k}/\partial h_{k-1} = \mathrm{diag}(\tanh')\,W_{hh}$; a product
    of many such factors shrinks towards 0 (vanishing gradients) or, less often, blows up (exploding gradients). A plain
    RNN therefore struggles to learn that something early in a sequence matters much later.

    **The LSTM** (long short-term memory) adds a second state, the **cell** $c_t$, and updates it by *addition*,
    under the control of **gates**: vectors of numbers between 0 and 1 (sigmoids) that multiply element by element,
    like valves. From one matrix product per input it computes four blocks, in PyTorch's order **i, f, g, o**:

    $$\begin{aligned}
    i &= \sigma(\cdot) &&\text{input gate: how much of the candidate to write}\\
    f &= \sigma(\cdot) &&\text{forget gate: how much of the old cell to keep}\\
    g &= \tanh(\cdot)  &&\text{the candidate values}\\
    o &= \sigma(\cdot) &&\text{output gate: how much of the cell to show}\\
    c_t &= f \odot c_{t-1} + i \odot g, \qquad h_t = o \odot \tanh(c_t)
    \end{aligned}$$

    where each $(\cdot)$ is that block of $x_t W_{ih}^\top + b_{ih} + h_{t-1} W_{hh}^\top + b_{hh}$. So `weight_ih` has
    `4 * hidden_size` rows: rows `0:H` belong to $i$, `H:2H` to $f$, `2H:3H` to $g$ and `3H:4H` to $o$
    (`gates.chunk(4, dim=1)` splits them). Along the cell, the gradient is multiplied only by $f$: when the network
    learns to hold $f \approx 1$, information and gradient travel many steps intact.

    **The GRU** (gated recurrent unit) is a lighter variant with three blocks, in PyTorch's order **r, z, n**, and no
    separate cell:

    $$\begin{aligned}
    r &= \sigma(x W_{ir}^\top + b_{ir} + h W_{hr}^\top + b_{hr}) &&\text{reset gate}\\
    z &= \sigma(x W_{iz}^\top + b_{iz} + h W_{hz}^\top + b_{hz}) &&\text{update gate}\\
    n &= \tanh\big(x W_{in}^\top + b_{in} + r \odot (h W_{hn}^\top + b_{hn})\big) &&\text{the candidate}\\
    h_t &= (1 - z) \odot n + z \odot h_{t-1}
    \end{aligned}$$

    With $z \approx 1$ the state is copied forward unchanged. Note where the reset gate sits: it multiplies the whole
    hidden part of the candidate, *including its bias* $b_{hn}$, so the two biases of $n$ cannot be merged (PyTorch and
    cuDNN define it this way).
    """),
    code("""
    for layer in (nn.RNN(8, 16), nn.GRU(8, 16), nn.LSTM(8, 16)):
        shapes = {name: tuple(parameter.shape) for name, parameter in layer.named_parameters()}
        print(f"{type(layer).__name__:5s} {sum(p.numel() for p in layer.parameters()):5d} parameters  {shapes}")

    lstm = nn.LSTM(input_size=3, hidden_size=5, batch_first=True)
    output, (h_n, c_n) = lstm(minitorch.randn(2, 4, 3))   # an LSTM returns (h_n, c_n) as its state
    print("LSTM output", tuple(output.shape), "h_n", tuple(h_n.shape), "c_n", tuple(c_n.shape))

    cell = nn.LSTMCell(3, 5)                               # one step at a time, for loops you write yourself
    h, c = cell(minitorch.randn(2, 3))
    print("LSTMCell step: h", tuple(h.shape), "c", tuple(c.shape))
    """),
    md(r"""
    ### Exercise 3 (build it): one LSTM step

    Write `lstm_cell(x, h, c, weight_ih, weight_hh, bias_ih, bias_hh)` returning the tuple `(h_new, c_new)`, with
    `weight_ih` of shape `(4 * hidden, input)` and the gates stacked in PyTorch's order i, f, g, o: the step
    `nn.LSTMCell` takes. Tensor operations only: when your notebook is graded, `nn.LSTMCell`, `nn.LSTM` and the fused
    ops of `minitorch/ops/recurrent.py` are switched off, and the hidden tests use sizes you have not seen. The cell
    after the check compares your step with `nn.LSTMCell` itself, its weights copied in. `hint("ch08.lstm_cell")`
    gives hints step by step.
    """),
    solution('''
    def lstm_cell(x, h, c, weight_ih, weight_hh, bias_ih, bias_hh):
        """One LSTM step: return (h_new, c_new). Gate order i, f, g, o."""
        ### BEGIN SOLUTION
        gates = x @ weight_ih.T + bias_ih + h @ weight_hh.T + bias_hh
        input_gate, forget_gate, candidate, output_gate = gates.chunk(4, dim=1)
        c_new = minitorch.sigmoid(forget_gate) * c + minitorch.sigmoid(input_gate) * minitorch.tanh(candidate)
        h_new = minitorch.sigmoid(output_gate) * minitorch.tanh(c_new)
        return h_new, c_new
        ### END SOLUTION
    ''', "ch08-lstm-cell"),
    tests("""
    check("ch08.lstm_cell", lstm_cell)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch08.lstm_cell", lstm_cell, [
        (randn(3, 2, seed=8301), randn(3, 5, seed=8302), randn(3, 5, seed=8303), randn(20, 2, seed=8304, scale=0.5),
         randn(20, 5, seed=8305, scale=0.5), randn(20, seed=8306), randn(20, seed=8307)),
        (randn(1, 4, seed=8308), randn(1, 1, seed=8309), randn(1, 1, seed=8310), randn(4, 4, seed=8311),
         randn(4, 1, seed=8312), randn(4, seed=8313), randn(4, seed=8314)),
    ])
    ### END HIDDEN TESTS
    """, "ch08-lstm-cell-tests", points=3),
    code("""
    # Your step against nn.LSTMCell, with the module's own weights: the largest difference should be around 1e-7.
    reference_cell = nn.LSTMCell(input_size=3, hidden_size=6)
    x_step, h_step, c_step = minitorch.randn(5, 3), minitorch.randn(5, 6), minitorch.randn(5, 6)
    with minitorch.no_grad():
        expected_h, expected_c = reference_cell(x_step, (h_step, c_step))
        try:
            mine_h, mine_c = lstm_cell(x_step, h_step, c_step, reference_cell.weight_ih, reference_cell.weight_hh,
                                       reference_cell.bias_ih, reference_cell.bias_hh)
            print(f"h: largest difference {(mine_h - expected_h).abs().max().item():.1e};"
                  f"  c: largest difference {(mine_c - expected_c).abs().max().item():.1e}")
        except NotImplementedError:
            print("Complete lstm_cell above first, then run this cell again.")
    """),
    md(r"""
    ### Exercise 4: one GRU step

    Write `gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh)` returning `h_new`, with the blocks in PyTorch's
    order r, z, n (weights of shape `(3 * hidden, ...)`). Keep `x @ weight_ih.T + bias_ih` and
    `h @ weight_hh.T + bias_hh` apart: the reset gate multiplies only the hidden part of $n$.
    """),
    solution('''
    def gru_cell(x, h, weight_ih, weight_hh, bias_ih, bias_hh):
        """One GRU step: return h_new. Gate order r, z, n."""
        ### BEGIN SOLUTION
        input_r, input_z, input_n = (x @ weight_ih.T + bias_ih).chunk(3, dim=1)
        hidden_r, hidden_z, hidden_n = (h @ weight_hh.T + bias_hh).chunk(3, dim=1)
        reset = minitorch.sigmoid(input_r + hidden_r)
        update = minitorch.sigmoid(input_z + hidden_z)
        candidate = minitorch.tanh(input_n + reset * hidden_n)
        return (1 - update) * candidate + update * h
        ### END SOLUTION
    ''', "ch08-gru-cell"),
    tests("""
    check("ch08.gru_cell", gru_cell)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch08.gru_cell", gru_cell, [
        (randn(4, 2, seed=8401), randn(4, 3, seed=8402), randn(9, 2, seed=8403, scale=0.5),
         randn(9, 3, seed=8404, scale=0.5), randn(9, seed=8405), randn(9, seed=8406)),
        (randn(1, 1, seed=8407), randn(1, 2, seed=8408), randn(6, 1, seed=8409), randn(6, 2, seed=8410),
         randn(6, seed=8411), randn(6, seed=8412)),
    ])
    ### END HIDDEN TESTS
    """, "ch08-gru-cell-tests", points=3),
    md(r"""
    ### Exercise 5 (build it): backpropagation through time, by hand

    Training a recurrent layer means differentiating the whole loop. `nn.LSTM` does it in one fused node
    (`LSTMSequence` in `minitorch/ops/recurrent.py`): forward runs the steps in order and keeps what each step's
    backward needs; backward walks the steps in **reverse** order, carrying the gradient of the state from each step
    to the one before it. That is *backpropagation through time* (BPTT). Write it yourself.

    Write `lstm_forward_backward(x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh, grad_output)`:

    * forward: run the LSTM over `x` of shape `(time, batch, input)` from the states `h0`, `c0` (each
      `(batch, hidden)`), with your cell's math, and stack every step's `h` into `output`, `(time, batch, hidden)`;
    * backward: `grad_output` (same shape as `output`) is the gradient of some loss with respect to `output`;
      return `(output, grad_x, grad_h0, grad_c0, grad_weight_ih, grad_weight_hh, grad_bias_ih, grad_bias_hh)`,
      each gradient shaped like its input.

    **No autograd**: derive each step's backward on paper (a step's `h` and `c` receive gradient from the output
    *and* from the next step; the weights are shared, so their gradients add up over the steps), then compute it
    with tensor operations. When your notebook is graded, `.backward()`, `autograd.grad`, `nn.LSTM`, `nn.LSTMCell`
    and the fused ops are switched off. The cells after the check compare your gradients with autograd's and
    gradcheck them. `hint("ch08.lstm_forward_backward")` gives hints step by step.
    """),
    solution('''
    def lstm_forward_backward(x, h0, c0, weight_ih, weight_hh, bias_ih, bias_hh, grad_output):
        """An LSTM over x (time, batch, input) and its backward pass through time, by hand:
        (output, grad_x, grad_h0, grad_c0, grad_weight_ih, grad_weight_hh, grad_bias_ih, grad_bias_hh)."""
        ### BEGIN SOLUTION
        steps = x.shape[0]
        hidden, cell = h0, c0
        outputs, saved = [], []
        for step in range(steps):
            gates = x[step] @ weight_ih.T + bias_ih + hidden @ weight_hh.T + bias_hh
            input_gate, forget_gate, candidate, output_gate = gates.chunk(4, dim=1)
            input_gate, forget_gate = minitorch.sigmoid(input_gate), minitorch.sigmoid(forget_gate)
            candidate, output_gate = minitorch.tanh(candidate), minitorch.sigmoid(output_gate)
            new_cell = forget_gate * cell + input_gate * candidate
            tanh_cell = minitorch.tanh(new_cell)
            saved.append((hidden, cell, input_gate, forget_gate, candidate, output_gate, tanh_cell))
            hidden, cell = output_gate * tanh_cell, new_cell
            outputs.append(hidden)

        grad_hidden, grad_cell = minitorch.zeros_like(h0), minitorch.zeros_like(c0)
        grad_weight_ih, grad_weight_hh = minitorch.zeros_like(weight_ih), minitorch.zeros_like(weight_hh)
        grad_bias = minitorch.zeros_like(bias_ih)
        grad_x = [None] * steps
        for step in reversed(range(steps)):
            previous_hidden, previous_cell, input_gate, forget_gate, candidate, output_gate, tanh_cell = saved[step]
            grad_hidden = grad_hidden + grad_output[step]
            grad_cell = grad_cell + grad_hidden * output_gate * (1 - tanh_cell * tanh_cell)
            grad_gates = minitorch.cat([
                grad_cell * candidate * input_gate * (1 - input_gate),
                grad_cell * previous_cell * forget_gate * (1 - forget_gate),
                grad_cell * input_gate * (1 - candidate * candidate),
                grad_hidden * tanh_cell * output_gate * (1 - output_gate),
            ], dim=1)
            grad_x[step] = grad_gates @ weight_ih
            grad_weight_ih = grad_weight_ih + grad_gates.T @ x[step]
            grad_weight_hh = grad_weight_hh + grad_gates.T @ previous_hidden
            grad_bias = grad_bias + grad_gates.sum(dim=0)
            grad_hidden = grad_gates @ weight_hh
            grad_cell = grad_cell * forget_gate
        output = minitorch.stack(outputs)
        return (output, minitorch.stack(grad_x), grad_hidden, grad_cell, grad_weight_ih, grad_weight_hh,
                grad_bias, grad_bias.clone())
        ### END SOLUTION
    ''', "ch08-lstm-bptt"),
    tests("""
    check("ch08.lstm_forward_backward", lstm_forward_backward)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)
    from grading.exercises.ch08 import _sequence_case  # noqa: E402

    check_hidden("ch08.lstm_forward_backward", lstm_forward_backward, [
        _sequence_case(9, 1, 1, 1, seed=8501),
        _sequence_case(4, 3, 5, 7, seed=8511),
        _sequence_case(2, 6, 4, 2, seed=8521),
    ])
    ### END HIDDEN TESTS
    """, "ch08-lstm-bptt-tests", points=4),
    code("""
    # Your gradients against autograd's through nn.LSTM (the same weights, h0, c0 and grad_output); then your backward,
    # wrapped in an autograd.Function, against finite differences (gradcheck). Differences around 1e-15 are rounding.
    steps_demo, batch_demo, input_demo, hidden_demo = 5, 3, 2, 4
    lstm_demo = nn.LSTM(input_demo, hidden_demo).double()
    x_demo = minitorch.randn(steps_demo, batch_demo, input_demo, dtype=minitorch.float64, requires_grad=True)
    h0_demo = minitorch.randn(1, batch_demo, hidden_demo, dtype=minitorch.float64, requires_grad=True)
    c0_demo = minitorch.randn(1, batch_demo, hidden_demo, dtype=minitorch.float64, requires_grad=True)
    upstream = minitorch.randn(steps_demo, batch_demo, hidden_demo, dtype=minitorch.float64)
    output_demo, _ = lstm_demo(x_demo, (h0_demo, c0_demo))
    output_demo.backward(upstream)
    weights_demo = [lstm_demo.weight_ih_l0, lstm_demo.weight_hh_l0, lstm_demo.bias_ih_l0, lstm_demo.bias_hh_l0]
    autograd_gradients = [x_demo.grad, h0_demo.grad[0], c0_demo.grad[0]] + [w.grad for w in weights_demo]
    names = ["x", "h0", "c0", "weight_ih", "weight_hh", "bias_ih", "bias_hh"]


    class LSTMByHand(minitorch.autograd.Function):
        \"\"\"Your forward and your backward as one node: autograd calls your gradients.\"\"\"

        @staticmethod
        def forward(ctx, *inputs):
            ctx.save_for_backward(*inputs)
            zeros = minitorch.zeros(inputs[0].shape[0], inputs[1].shape[0], inputs[1].shape[1],
                                    dtype=inputs[0].dtype)
            return lstm_forward_backward(*inputs, zeros)[0]

        @staticmethod
        def backward(ctx, grad_output):
            return lstm_forward_backward(*ctx.saved_tensors, grad_output)[1:]


    try:
        with minitorch.no_grad():
            inputs_demo = [x_demo, h0_demo[0], c0_demo[0]] + weights_demo
            mine = lstm_forward_backward(*(t.detach() for t in inputs_demo), upstream)
        print(f"output: largest difference from nn.LSTM {(mine[0] - output_demo).abs().max().item():.1e}")
        for name, my_gradient, autograd_gradient in zip(names, mine[1:], autograd_gradients):
            difference = (my_gradient - autograd_gradient).abs().max().item()
            print(f"grad_{name:9s}: largest difference from autograd {difference:.1e}")
        small = [minitorch.randn(*shape, dtype=minitorch.float64, requires_grad=True)
                 for shape in [(3, 2, 2), (2, 3), (2, 3), (12, 2), (12, 3), (12,), (12,)]]
        print("gradcheck of your backward:", minitorch.autograd.gradcheck(LSTMByHand.apply, small))
    except NotImplementedError:
        print("Complete lstm_forward_backward above first, then run this cell again.")
    """),
    md(r"""
    Look at `grad_c0` and `grad_h0`: what is left after the last backward step is the gradient that reaches the very
    start of the sequence. It flows back along two roads: through `h` (multiplied at every step by the gates' slopes
    and `W_hh`) and along the cell (multiplied only by `f`). The next section measures how much of it survives.
    """),
    md(r"""
    ## 4. How far back does the gradient reach?

    A direct look at the problem the gates solve. Feed a sequence of 60 random steps, take the last output, and ask
    autograd how much it depends on each input step: the size of $\partial h_{60} / \partial x_t$ (the norm of
    `x.grad[:, t]` after `output[:, -1].sum().backward()`). Compare a plain RNN, an LSTM and a GRU as freshly
    initialised, and the same LSTM and GRU with one change: the bias of the forget gate $f$ (or of the update gate
    $z$) set to 3, so that the gate starts at $\sigma(3) \approx 0.95$, nearly open (keep the old state).
    """),
    code("""
    steps, hidden_size = 60, 32
    inputs = minitorch.randn(16, steps, 4)

    def gradient_reach(layer):
        x = inputs.clone().requires_grad_()
        output, _ = layer(x)
        output[:, -1].sum().backward()
        reach = x.grad.norm(dim=(0, 2)).numpy()             # one number per time step
        return reach / reach[-1]                            # relative to the last step

    def with_gate_bias(layer, block, value):
        with minitorch.no_grad():                           # rows block*H:(block+1)*H belong to that gate
            layer.bias_ih_l0[block * hidden_size:(block + 1) * hidden_size].fill_(value)
            layer.bias_hh_l0[block * hidden_size:(block + 1) * hidden_size].fill_(0.0)
        return layer

    minitorch.manual_seed(0)
    layers = {
        "RNN": nn.RNN(4, hidden_size, batch_first=True),
        "LSTM": nn.LSTM(4, hidden_size, batch_first=True),
        "GRU": nn.GRU(4, hidden_size, batch_first=True),
        "LSTM, forget-gate bias 3": with_gate_bias(nn.LSTM(4, hidden_size, batch_first=True), block=1, value=3.0),
        "GRU, update-gate bias 3": with_gate_bias(nn.GRU(4, hidden_size, batch_first=True), block=1, value=3.0),
    }
    for name, layer in layers.items():
        plt.plot(range(1, steps + 1), gradient_reach(layer), label=name, linestyle="--" if "bias" in name else "-")
    plt.yscale("log")
    plt.ylim(1e-12, 10)
    plt.xlabel("input step t")
    plt.ylabel("|d h_60 / d x_t|, relative to t = 60")
    plt.legend(fontsize=8)
    plt.show()
    """),
    md(r"""
    Freshly initialised, all three forget quickly: every gate sits near $\sigma(0) = 0.5$, so the state is halved at
    each step, no better than the RNN's $\tanh'$ and $W_{hh}$. The difference is that an LSTM or GRU *has a switch*:
    once its forget (update) gate is near 1, the gradient from step 60 still reaches step 1. Training can learn to open
    the gates where memory is needed; an RNN has no such switch. This is also why a common trick starts an LSTM's
    forget-gate bias at 1 (PyTorch's default starts it like every other bias, uniform around 0).

    ## 5. A task that needs memory

    The task: read a sequence of 40 symbols from a vocabulary of 4 and, at the end, say which symbol came **first**.
    The answer is at the very start and the 39 symbols after it are noise to ignore, so the network must carry one
    piece of information through 39 steps: the long dependency section 4 is about. (Guessing is right one time in 4.)
    The model is the whole chapter in one: an `nn.Embedding` for the symbols, a recurrent layer, and an `nn.Linear`
    on the last hidden state, trained with cross-entropy and Adam, on the same batches for the three layers.

    The LSTM and the GRU start with section 4's switch set to *keep*: the forget gate $f$ and the update gate $z$
    at $\sigma(3) \approx 0.95$. The LSTM's input gate $i$ also starts nearly closed, $\sigma(-3) \approx 0.05$, so that
    it writes little of each new symbol into its cell, as the GRU, whose update gate lets in only $1 - z$ of the new
    candidate, does by construction. (Without that, the LSTM's cell fills with the 39 noise symbols.) A plain RNN has
    no gate to set: that is the comparison.

    Recurrent networks occasionally produce a huge gradient (the exploding case above), and one bad step can undo
    much training. `nn.utils.clip_grad_norm_(parameters, max_norm)` rescales all gradients together whenever their
    overall norm exceeds `max_norm`; it goes between `backward()` and `step()`. Training stops early once a layer
    has solved the task (the average loss of the last 10 batches below 0.01), at 150 batches of 256 sequences otherwise.
    """),
    code("""
    vocabulary, length, max_steps, batch_size = 4, 40, 150, 256

    class RecallFirst(nn.Module):
        def __init__(self, kind, embedding_size=8, hidden_size=16):
            super().__init__()
            self.embed = nn.Embedding(vocabulary, embedding_size)
            recurrent_class = getattr(nn, kind)           # nn.RNN, nn.LSTM or nn.GRU
            self.recurrent = recurrent_class(embedding_size, hidden_size, batch_first=True)
            self.head = nn.Linear(hidden_size, vocabulary)
            if kind in ("LSTM", "GRU"):                   # section 4's switch, set to "keep"
                with minitorch.no_grad():
                    # rows H:2H are the forget gate f (LSTM: i, f, g, o) or the update gate z (GRU: r, z, n)
                    self.recurrent.bias_ih_l0[hidden_size:2 * hidden_size].fill_(3.0)
                    if kind == "LSTM":                    # rows 0:H, the input gate i: write little at first
                        self.recurrent.bias_ih_l0[:hidden_size].fill_(-3.0)

        def forward(self, tokens):                        # tokens: (batch, length) ids
            output, _ = self.recurrent(self.embed(tokens))
            return self.head(output[:, -1])               # the last step's state -> a score per symbol

    def make_batch(generator, size):
        tokens = generator.integers(0, vocabulary, size=(size, length))
        return minitorch.tensor(tokens), minitorch.tensor(tokens[:, 0])

    def train(kind):
        minitorch.manual_seed(0)
        generator = np.random.default_rng(0)              # the same batches for every kind
        model = RecallFirst(kind)
        optimizer = optim.Adam(model.parameters(), lr=0.02)
        losses = []
        while len(losses) < max_steps and not (len(losses) >= 10 and np.mean(losses[-10:]) < 0.01):
            tokens, first = make_batch(generator, batch_size)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(tokens), first)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            optimizer.step()
            losses.append(loss.item())
        tokens, first = make_batch(np.random.default_rng(1), 1000)
        with minitorch.no_grad():
            accuracy = (model(tokens).argmax(dim=1) == first).float().mean().item()
        return losses, accuracy

    results = {kind: train(kind) for kind in ("RNN", "LSTM", "GRU")}
    print(f"{'layer':5s} {'batches':>8s} {'last loss':>10s} {'accuracy on 1000 new sequences':>31s}")
    for kind, (losses, accuracy) in results.items():
        verdict = "solved" if accuracy > 0.95 else "at the guessing level" if accuracy < 0.35 else "partly learned"
        print(f"{kind:5s} {len(losses):8d} {np.mean(losses[-10:]):10.3f} {accuracy:30.1%}  {verdict}")
        smooth = np.convolve(losses, np.ones(10) / 10, mode="valid")
        plt.plot(np.arange(9, len(losses)), smooth, label=f"{kind}: accuracy {accuracy:.1%} on new sequences")
    plt.axhline(np.log(vocabulary), color="gray", linestyle=":", label="guessing (log 4)")
    plt.yscale("log")
    plt.xlabel("batch")
    plt.ylabel("cross-entropy (average of 10)")
    plt.legend(fontsize=8)
    plt.show()
    """),
    md(r"""
    Read the table and the curves. Each curve starts at the guessing level, $\log 4 \approx 1.39$. A layer that finds
    how to keep the first symbol drops towards 0 within a few dozen batches, and its accuracy on new sequences is
    near 100%; a layer that does not stays on the dotted line, and its accuracy stays near 25%, a guess. Which layers
    did what is printed above, from this run.

    Why the difference: the loss at step 40 reaches the first symbol only through 39 steps of the recurrence. In the
    plain RNN each step multiplies that gradient by $\mathrm{diag}(\tanh')\,W_{hh}$, so almost nothing arrives, and
    there is nothing to learn from (section 4's plot). The LSTM's cell and the GRU's state, with their gates near
    *keep*, pass it along almost intact. The gates are what the layers pay for with their extra parameters and more
    computation per step. The initial biases matter too: give the LSTM PyTorch's default biases, or raise only its
    forget bias (delete the `if kind == "LSTM"` lines), run the training cell again with a few seeds, and read the
    table each time: does it still solve the task within the 150 batches? In practice the GRU and the LSTM perform
    similarly; the LSTM is the more common default, and attention (chapter 9) has replaced both for most long-sequence
    work.

    ## 6. Sequences of different lengths: padding and packing

    Real batches mix lengths: sentences of 3 and of 30 words. `nn.utils.rnn.pad_sequence` stacks them into one tensor,
    filling the short ones with zeros, but a recurrent layer would then also read the padding: the final state of a
    short sequence would be the state *after the padding*, not after its last real step.

    **Packing** fixes that. `pack_sequence` (or `pack_padded_sequence` on a padded batch with its lengths) sorts the
    sequences from longest to shortest and keeps only their real steps, time step by time step; `batch_sizes[t]` says
    how many sequences are still running at step `t`. `nn.RNN`, `nn.LSTM` and `nn.GRU` accept the packed batch and
    return a packed output, and each sequence's `h_n` is its state after its *own* last step (a reverse direction
    starts at its own end). `pad_packed_sequence` turns the output back into a padded tensor, in your order.
    """),
    code("""
    from minitorch.nn.utils.rnn import pack_sequence, pad_packed_sequence, pad_sequence

    sentences = [minitorch.randn(length, 3) for length in (2, 5, 3)]
    padded = pad_sequence(sentences, batch_first=True)
    print("padded:", tuple(padded.shape), " (batch, longest, features)")

    packed = pack_sequence(sentences, enforce_sorted=False)
    print("packed data:", tuple(packed.data.shape), " batch_sizes:", packed.batch_sizes.tolist(),
          " sorted order:", packed.sorted_indices.tolist())

    gru = nn.GRU(3, 4, batch_first=True)
    packed_output, h_n = gru(packed)
    output, lengths = pad_packed_sequence(packed_output, batch_first=True)
    print("output:", tuple(output.shape), " lengths:", lengths.tolist(), " h_n:", tuple(h_n.shape))

    for index, sentence in enumerate(sentences):             # each h_n is the state after that sentence's last step
        _, alone = gru(sentence[None])
        _, padded_state = gru(padded[index:index + 1])        # the padded sentence also reads the zeros
        same = bool(minitorch.allclose(h_n[:, index], alone[:, 0]))
        print(f"sentence {index}: packed h_n equals running it alone: {same};"
              f"  the padded run's h_n differs by {float((padded_state - alone).abs().max()):.3f}")
    """),
    md(r"""
    ### Targets without timing: the CTC loss

    Speech and handwriting recognisers read many steps (audio frames, pen positions) and must output a much shorter
    label sequence whose timing nobody wrote down: "cat", not "c at frames 3-5, a at 6-9". `nn.CTCLoss` (connectionist
    temporal classification) handles that. The model emits, at every step, log-probabilities over the labels plus a
    **blank**; an *alignment* picks one class per step and reads as the target once repeats are merged and blanks
    dropped (`-cc-aat` and `c--a-tt` both read `cat`). The loss is $-\log$ of the summed probability of every
    alignment that reads as the target. There are exponentially many, but a dynamic programme over the target with
    blanks between its labels adds them up in $O(T \cdot S)$ (`minitorch/ops/ctc.py`).

    Check it by brute force on a tiny case: 5 steps, 3 classes (0 is the blank), target `[1, 2]`.
    """),
    code("""
    import itertools

    steps, classes, target = 5, 3, [1, 2]
    log_probs = minitorch.randn(steps, classes, dtype=minitorch.float64).log_softmax(dim=1)

    def reads_as(path, blank=0):
        merged = [label for index, label in enumerate(path) if index == 0 or label != path[index - 1]]
        return [label for label in merged if label != blank]

    alignments = [path for path in itertools.product(range(classes), repeat=steps) if reads_as(path) == target]
    total = sum(float(log_probs[minitorch.arange(steps), list(path)].sum().exp()) for path in alignments)
    ctc = nn.CTCLoss(blank=0, reduction="sum")(log_probs[:, None, :], minitorch.tensor([target]), [steps], [2])
    print(f"{len(alignments)} of {classes ** steps} alignments read as {target}, e.g. {alignments[:3]}")
    print(f"-log(sum of their probabilities) = {-np.log(total):.6f};  CTCLoss = {ctc.item():.6f}")
    """),
    md(r"""
    ## Summary

    * `nn.Embedding(V, d)` is a trainable `(V, d)` table; looking up ids is indexing (`weight[ids]`), equal to a
      one-hot product without the one-hot vectors. Its gradient is non-zero only on looked-up rows, which
      `sparse=True` stores compactly in PyTorch; with plain SGD only those rows move.
    * A recurrent layer applies one cell at every step, carrying a hidden state: $h_t = \tanh(x_t W_{ih}^\top + b_{ih}
      + h_{t-1} W_{hh}^\top + b_{hh})$ for `nn.RNN`. Inputs are `(time, batch, features)` unless `batch_first=True`.
    * `nn.LSTM` adds a cell state updated by addition under gates i, f, g, o (in that order in PyTorch's weights);
      `nn.GRU` uses gates r, z, n. Gates near 1 let information and gradients cross many steps.
    * Clip gradients (`nn.utils.clip_grad_norm_`) when training recurrent networks.
    * Batches of different lengths: `pad_sequence` to stack them, `pack_sequence` / `pack_padded_sequence` so that a
      recurrent layer reads only the real steps and each `h_n` is the state after its sequence's own end.
    * `nn.CTCLoss` trains on label sequences without timing: it sums the probability of every alignment that reads as
      the target, with a dynamic programme instead of an enumeration.
    """),
    code("""
    summary("ch08")
    """),
]

write("08_sequences", cells)
