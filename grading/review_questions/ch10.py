"""Review questions of chapter 10: pretrained models (weights, evaluation, features, transfer learning)."""

from grading.review import choice, number

QUESTIONS = [
    choice(
        "Why evaluate a pretrained model in `eval()` mode?",
        [
            "it turns off gradient recording",
            "layers such as Dropout and BatchNorm behave differently in training; eval() uses the running statistics "
            "and keeps every unit",
            "it loads the weights",
            "it makes the model smaller",
        ],
        "b",
        "eval() sets the mode flag; no_grad() is what stops recording. Evaluate with both, and with the preprocessing "
        "the weights were trained with (weights.transforms()).",
    ),
    number(
        "Logits [[0.1, 0.5, 0.4], [0.7, 0.2, 0.1], [0.35, 0.25, 0.4]], targets [2, 1, 0]. What is the top-2 accuracy "
        "(a fraction)?",
        1.0,
        "The two largest logits per row are classes {1, 2}, {0, 1} and {2, 0}: each contains its target, so top-2 "
        "accuracy is 1.0, while top-1 accuracy is 0. Top-k and the confusion matrix say more than accuracy alone.",
    ),
    choice(
        "You freeze a pretrained network with `requires_grad_(False)` and attach a new `nn.Linear` head. What does "
        "training update?",
        [
            "every parameter",
            "only the new head: the frozen parameters get no gradient",
            "nothing",
            "only the first layer",
        ],
        "b",
        "Frozen parameters take no part in backward's results; only the head learns, on the features the pretrained "
        "body extracts. Fine-tuning unfreezes the body too, usually with a smaller learning rate.",
    ),
    choice(
        "Why fine-tune the pretrained body with a smaller learning rate than the new head?",
        [
            "the body has more parameters",
            "its weights are already good; large steps would destroy the features before the random head has learned",
            "a smaller rate is faster",
            "the optimizer requires it",
        ],
        "b",
        "Parameter groups give each part its own learning rate: the new head learns fast, the pretrained features "
        "adapt gently.",
    ),
    choice(
        "How do you get the features a network computes just before its classifier head?",
        [
            "retrain the network without the head",
            "slice the Sequential before the head, or register a forward hook on the layer",
            "read the gradients of the head",
            "call model.eval()",
        ],
        "b",
        "Everything before the head is a feature extractor; a slice runs only that part, and a forward hook captures "
        "a layer's output while the whole model runs.",
    ),
    choice(
        "minitorch loads a pretrained weight file. What can the file contain?",
        [
            "any Python object, including code that runs when it is loaded",
            "only data (tensors, numbers, containers); its hash is checked before loading",
            "a whole model class",
            "a link to download more code",
        ],
        "b",
        'Weight files hold only data, read through an allow-list; models.lenet5(weights="DEFAULT") also checks the '
        "file's hash.",
    ),
]
