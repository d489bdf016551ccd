"""Review questions of chapter 7: convolutions and vision (im2col, Conv2d, pooling, BatchNorm2d, transforms)."""

from grading.review import choice, number

QUESTIONS = [
    number(
        "`nn.Conv2d(1, 8, kernel_size=3, stride=2, padding=1)` on a 32×32 image: what is the output's height?",
        16,
        "⌊(n + 2p − d(k−1) − 1)/s⌋ + 1 = ⌊(32 + 2 − 2 − 1)/2⌋ + 1 = ⌊31/2⌋ + 1 = 16.",
    ),
    number(
        "How many trainable numbers does `nn.Conv2d(3, 16, kernel_size=3)` hold?",
        448,
        "The weight is (16, 3, 3, 3) = 432 numbers, plus a bias of 16: 448. The kernels are shared across all "
        "positions, which is why a convolution has so few parameters.",
    ),
    number(
        "And `nn.Conv2d(16, 32, kernel_size=3, groups=4)`?",
        1184,
        "groups=4 splits the 16 input channels into 4 groups of 4, and each output channel sees only its group: the "
        "weight is (32, 4, 3, 3) = 1152, plus 32 biases: 1184. groups divides the weights.",
    ),
    choice(
        "`F.unfold(x, kernel_size=3)` with x of shape (1, 3, 5, 5) gives:",
        ["(1, 9, 27)", "(1, 27, 9)", "(1, 3, 3, 3)", "(1, 27, 25)"],
        "b",
        "im2col lays out each 3×3 window of all 3 channels as a column of 27 numbers, and there are 3×3 = 9 window "
        "positions. One matrix product with the weight flattened to (out, 27) gives every output.",
    ),
    choice(
        "Where does the gradient of `nn.MaxPool2d` go in backward?",
        [
            "spread evenly over each window",
            "only to the winning (maximum) input of each window; the others get zero",
            "to every input, scaled by its value",
            "nowhere: pooling has no gradient",
        ],
        "b",
        "The output is one input of the window, so its derivative is 1 for the winner and 0 for the rest. Average "
        "pooling, by contrast, spreads the gradient evenly.",
    ),
    number(
        "How many trainable numbers does `nn.BatchNorm2d(16)` hold? (Running statistics are buffers, not parameters.)",
        32,
        "A scale (weight) and a shift (bias) per channel: 2 × 16. The running mean and variance are buffers, used in "
        "eval() and saved in the state_dict, but not trained by the optimizer.",
    ),
    choice(
        "Which augmentation is a bad idea for handwritten digits?",
        [
            "a small random shift",
            "a small rotation",
            "a horizontal flip or a 180° rotation",
            "a little noise",
        ],
        "c",
        "An augmentation must keep the label true. A flipped 2 or a 6 turned upside down (a 9) is no longer the digit "
        "it is labelled as; flips that suit photos of cats are wrong for digits.",
    ),
]
