"""Review questions of chapter 8: sequences (embeddings, RNN, LSTM/GRU, clipping, packing, CTC)."""

from grading.review import choice, number

QUESTIONS = [
    number(
        "How many trainable numbers does `nn.Embedding(100, 8)` hold?",
        800,
        "One row of 8 numbers per token of the vocabulary: a (100, 8) table. Looking up ids is indexing, weight[ids].",
    ),
    number(
        "How many trainable numbers does `nn.RNN(input_size=10, hidden_size=20)` hold?",
        640,
        "W_ih (20, 10) = 200, W_hh (20, 20) = 400, and two biases b_ih and b_hh of 20 each: 640.",
    ),
    choice(
        "What is the shape of `nn.LSTM(10, 20).weight_ih_l0`?",
        ["(20, 10)", "(40, 10)", "(80, 10)", "(80, 20)"],
        "c",
        "The four gates i, f, g, o (in that order) are stacked: 4 × 20 = 80 rows, one column per input feature. A GRU "
        "stacks three (r, z, n).",
    ),
    choice(
        "An `nn.RNN` made without `batch_first` expects its input as:",
        ["(batch, time, features)", "(time, batch, features)", "(features, time, batch)", "(batch, features, time)"],
        "b",
        "Time first is the default; batch_first=True switches to (batch, time, features) for the input and output (not "
        "for h_n).",
    ),
    choice(
        "A batch of token ids uses 5 of the 100 rows of an embedding. After backward and one step of plain SGD, which "
        "rows have changed?",
        ["all 100", "only the 5 looked-up rows", "none: embeddings are not trained", "the 95 others"],
        "b",
        "The gradient of a lookup is non-zero only on the rows that were looked up (sparse=True stores just those in "
        "PyTorch). Plain SGD moves only them; weight decay or momentum could move others.",
    ),
    number(
        "Gradients [3, 4] and `clip_grad_norm_(parameters, max_norm=1)`: what is the first gradient afterwards? "
        "(2 decimals)",
        0.6,
        "The total norm is 5, above max_norm, so all gradients are scaled by 1/5 together (keeping their direction): "
        "[0.6, 0.8].",
        abs_tol=5e-3,
    ),
    choice(
        "Why pack a batch of padded sequences (`pack_padded_sequence`) before a recurrent layer?",
        [
            "to save memory on the embeddings",
            "so the layer reads only the real steps, and each h_n is the state after its own sequence's end",
            "to sort the batch",
            "packing is required for the GRU only",
        ],
        "b",
        "Without packing the short sequences run through the padding too, and their final state is the state after "
        "the filler.",
    ),
]
