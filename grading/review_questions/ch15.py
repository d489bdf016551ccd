"""Review questions of chapter 15, the capstone: a character-level language model from the learner's pieces."""

import math

from grading.review import choice, number

QUESTIONS = [
    number(
        "A character-level model over a vocabulary of 64 characters guesses uniformly. What is its cross-entropy "
        "loss? (3 decimals)",
        math.log(64),
        "Every character gets probability 1/64, so the loss is −ln(1/64) = ln 64 ≈ 4.159: the baseline every "
        "trained model must beat, before the unigram and bigram counts.",
        abs_tol=5e-4,
    ),
    choice(
        'The text is "hello world", a window starts at position 0 and block_size is 4. Which are the inputs and '
        "the targets?",
        [
            'inputs "hell", targets "ello"',
            'inputs "hell", targets "o"',
            'inputs "hello", targets "ello "',
            'inputs "hell", targets "hell"',
        ],
        "a",
        "The targets are the same window moved one character later: targets[t] is the character after inputs[t], "
        "so one window gives block_size predictions at once.",
    ),
    number(
        "An embedding lookup reads the ids [2, 2, 0] from a table of 3 rows of width 1, and the gradient arriving at "
        "each looked-up row is 1. What is the gradient of the table's row 2?",
        2,
        "Backward adds each row of the incoming gradient into the row it came from: id 2 appears twice, so its row "
        "collects 1 + 1 = 2; row 0 gets 1 and row 1, never looked up, gets 0 (index_add_ into zeros).",
    ),
    choice(
        "Why does the language model's attention need a causal mask?",
        [
            "to make training faster",
            "without it, the prediction at position t could read the character it must predict (at t + 1): a low loss "
            "by cheating that generation cannot use",
            "to save memory",
            "so the softmax sums to 1",
        ],
        "b",
        "The mask sets the scores of later positions to −inf before the softmax, so their weights are exactly 0. The "
        "chapter's evaluate checks it: changing later characters must not change earlier predictions.",
    ),
    number(
        "Logits [2, 0] sampled with temperature T = 2: what probability does the first character get? (3 decimals)",
        math.e / (math.e + 1),
        "Divide the logits by T first: softmax([1, 0]) gives e/(e + 1) ≈ 0.731, against 0.881 at T = 1. T > 1 "
        "flattens the distribution (more surprising text), T < 1 sharpens it, and T → 0 always picks the most likely.",
        abs_tol=5e-4,
    ),
    number(
        "Inverse-transform sampling: probabilities [0.2, 0.5, 0.3] laid end to end on [0, 1), id 0 first, and the "
        "uniform number u = 0.65. Which id is drawn?",
        1,
        "The pieces are [0, 0.2) for id 0, [0.2, 0.7) for id 1 and [0.7, 1) for id 2; u = 0.65 falls in id 1's piece. "
        "Each id is drawn with its own probability because its piece has that length.",
    ),
    choice(
        "Why does the model add a learned position vector to each character's embedding?",
        [
            "to make the embeddings larger",
            "attention on its own ignores order; the position vectors tell the block where each character is",
            "to replace the causal mask",
            "to normalise the embeddings",
        ],
        "b",
        "Attention is a weighted average over a set (chapter 9): without positions, 'dog' and 'god' would look the "
        "same to it up to a permutation.",
    ),
]
