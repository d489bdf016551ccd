"""Review questions of chapter 4: networks (Parameter, Module, Linear, state_dict, initialisation, a training step)."""

from grading.review import choice, number

QUESTIONS = [
    number(
        "How many trainable numbers does `nn.Linear(3, 5)` hold?",
        20,
        "A weight of shape (5, 3) (out, in) and a bias of 5: 15 + 5 = 20. `sum(p.numel() for p in "
        "layer.parameters())` counts them.",
    ),
    choice(
        "What is the shape of `nn.Linear(3, 5).weight`?",
        ["(3, 5)", "(5, 3)", "(5,)", "(15,)"],
        "b",
        "Linear computes x Wᵀ + b with W of shape (out_features, in_features), so an input row of 3 features "
        "becomes 5.",
    ),
    choice(
        "Which of these is a key of `nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)).state_dict()`?",
        ["'1.weight'", "'linear2.weight'", "'2.weight'", "'layers.2.weight'"],
        "c",
        "Keys are the attribute paths to each parameter; Sequential names its children 0, 1, 2. ReLU (child 1) has no "
        "parameters, so the keys are 0.weight, 0.bias, 2.weight and 2.bias.",
    ),
    choice(
        "Two `nn.Linear` layers stacked with no activation between them compute:",
        [
            "a more expressive function than one layer",
            "a function one Linear layer could compute too (a product of affine maps is affine)",
            "the same as two layers with ReLU between them",
            "an error",
        ],
        "b",
        "x W₁ᵀ W₂ᵀ + (b₁ W₂ᵀ + b₂) is again one affine map. The non-linearity between layers is what makes "
        "depth useful.",
    ),
    choice(
        "How does `parameters()` find the weights assigned as `self.fc = nn.Linear(...)` in `__init__`?",
        [
            "it inspects the source code of __init__",
            "Module.__setattr__ records Parameters and sub-Modules in two dictionaries, and parameters() walks them "
            "recursively",
            "it searches every attribute of the object with dir()",
            "the Linear layer registers itself in a global list",
        ],
        "b",
        "Assigning a Parameter or a Module to an attribute goes through __setattr__, which files it in _parameters or "
        "_modules. named_parameters() walks those dictionaries, building dotted names: the machinery you wrote.",
    ),
    choice(
        "What does `model.eval()` do?",
        [
            "turns off gradient recording",
            "sets `training = False` on the model and every sub-module, so layers like Dropout and BatchNorm switch "
            "behaviour",
            "evaluates the model on the test set",
            "freezes the parameters",
        ],
        "b",
        "train()/eval() only set a flag, recursively. Gradients are still recorded in eval mode: use "
        "no_grad() for that.",
    ),
]
