"""Chapter 10: pretrained models and transfer learning (shipped weights, evaluation, features, freezing, a new
head, fine-tuning compared with training from scratch)."""

from author import code, md, solution, tests, write

cells = [
    md(r"""
    # 10. Pretrained models and transfer learning

    Training a network from nothing takes data and time. Most real projects skip that: they start from a network
    someone already trained on a large data set, keep what it learned about images, and teach it only the new part
    of their task. That is **transfer learning**, and with PyTorch it is a few lines, always the same ones.

    By the end of this chapter you will be able to:

    * load the pretrained weights that ship with the kit (`models.lenet5(weights="DEFAULT")`), read what they are
      (their model card and `meta`), and know how the file is checked before it is used;
    * evaluate a model properly: the same preprocessing as in training, `eval()` mode, `no_grad()`; accuracy,
      top-k accuracy and a confusion matrix;
    * use a trained network as a **feature extractor** (its penultimate activations);
    * **freeze** parameters with `requires_grad_(False)`, **replace the head**, and **fine-tune**;
    * compare fine-tuning with training from scratch for the same number of steps, on a task the network never saw.
    """),
    code("""
    import hashlib
    import zipfile
    from pathlib import Path

    import matplotlib.pyplot as plt
    import numpy as np
    from IPython.display import Markdown, display

    import minitorch
    import minitorch.nn as nn
    import minitorch.nn.functional as F
    import minitorch.optim as optim
    from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
    from minitorch.utils.data import DataLoader
    from minitorch.vision import datasets, models
    """),
    md(r"""
    ## 1. Weights that ship with the kit

    As in torchvision, each architecture with pretrained weights has an *enum* of them: `models.LeNet5_Weights`,
    `models.ResNet8_Weights`, `models.MLP_Weights`. A member such as `LeNet5_Weights.DIGITS_V1` (alias `DEFAULT`)
    knows three things: the file, the **preprocessing** the model was trained with (`transforms()`), and facts about
    the training (`meta`).
    """),
    code("""
    weights = models.LeNet5_Weights.DEFAULT
    print(weights, "| members:", list(models.LeNet5_Weights))
    for key in ["dataset", "image_size", "num_params", "epochs", "optimizer", "augmentation", "test_accuracy"]:
        print(f"  {key:14s} {weights.meta[key]}")
    print("preprocessing:", weights.transforms())
    """),
    md(r"""
    The weights were trained by `python -m minitorch.vision.models.train`, which also wrote a **model card**: what
    the data was, how the models were trained, how well they do, and what they must not be used for. Every set of
    published weights deserves one; read it before you trust the numbers.
    """),
    code("""
    card = Path(models.__file__).parent / "MODEL_CARD.md"
    display(Markdown(card.read_text()))
    """),
    md(r"""
    A weights file is data you did not write. A `torch.save` file holds a *pickle*, and unpickling can run any code
    its author put in it; that is why `torch.load` now defaults to `weights_only=True`: it unpickles through an
    allow-list that rebuilds tensors, numbers and containers and refuses everything else. `minitorch.load` reads
    the same files and follows the same rule (`minitorch/serialization.py`). The shipped weights are in minitorch's
    first format, which cannot hold code at all: a zip of a JSON index and raw NumPy arrays. And before reading a
    file, the loader compares the file's SHA-256 hash with the one recorded in `manifest.json`
    when the weights were made (`minitorch/vision/models/_api.py`), so a corrupted or swapped file is refused
    rather than silently giving wrong answers.
    """),
    code("""
    path = Path(weights.path)
    with zipfile.ZipFile(path) as archive:
        print(path.name, f"{path.stat().st_size / 1024:.0f} KiB:", archive.namelist()[:4], "...")
    found = hashlib.sha256(path.read_bytes()).hexdigest()
    print("sha256 on disk  ", found)
    print("sha256 recorded ", weights.sha256, "| match:", found == weights.sha256)
    """),
    md(r"""
    `models.lenet5(weights="DEFAULT")` builds the architecture, checks and loads the state dict, and switches the
    model to `eval()` mode. Doing it by hand shows there is no magic: a state dict is a dictionary from parameter
    names to tensors, and `load_state_dict` copies it into a freshly built model.
    """),
    code("""
    model = models.lenet5(weights="DEFAULT")            # or weights=models.LeNet5_Weights.DIGITS_V1
    by_hand = models.lenet5()                            # random weights
    state = weights.get_state_dict()                     # hash checked, then minitorch.load
    print(list(state)[:4], "...", len(state), "tensors")
    print(by_hand.load_state_dict(state))
    by_hand.eval()
    x = minitorch.randn(2, 1, 28, 28)
    print("same outputs:", minitorch.equal(model(x), by_hand(x)))
    """),
    md(r"""
    ## 2. Evaluating a pretrained model

    Three rules, each a classic source of silently wrong numbers:

    1. **Prepare inputs exactly as in training.** This model saw 28×28 digits scaled to $[-1, 1]$; feed it $[0, 1]$
       images and its accuracy drops. `weights.transforms()` is that preprocessing, so use it.
    2. **`model.eval()`**: dropout off, batch norm on its running statistics (more on this below).
    3. **`minitorch.no_grad()`**: no graph is recorded, which saves memory and time.

    The shipped weights were trained on the 1,437 training digits; the 360 test digits were never used for training,
    so they tell how the model does on new images.
    """),
    code("""
    preprocess = weights.transforms()
    test_set = datasets.Digits(train=False, image_size=28, transform=preprocess)
    images, labels = next(iter(DataLoader(test_set, batch_size=len(test_set))))   # all 360 in one batch
    print("images", tuple(images.shape), images.dtype, f"values {images.min().item():.1f} to {images.max().item():.1f}")

    model.eval()
    with minitorch.no_grad():
        logits = model(images)
        raw_logits = model(images * 0.5 + 0.5)             # the mistake: [0, 1] inputs instead of [-1, 1]
    accuracy = (logits.argmax(dim=1) == labels).float().mean().item()
    print(f"test accuracy {accuracy:.1%} (the model card says {weights.meta['test_accuracy']:.1%})")
    print(f"with the wrong preprocessing: {(raw_logits.argmax(dim=1) == labels).float().mean().item():.1%}")
    """),
    md(r"""
    ### Exercise 1: top-k accuracy

    With many classes, "was the right answer among the model's k best guesses?" is a useful second number (ImageNet
    results quote top-1 and top-5). Write `topk_accuracy(logits, labels, k)`: for `logits` of shape `(N, C)` and
    integer `labels` of shape `(N,)`, the fraction of rows whose label is among the `k` largest scores, as a 0-d
    float32 tensor. With `k = 1` it is the ordinary accuracy.

    A way without sorting: the label is in the top k exactly when fewer than k scores in its row are larger than the
    label's own score (`logits.gather` picks that score).
    """),
    solution('''
    def topk_accuracy(logits, labels, k):
        """Fraction of rows of logits whose label is among the k largest scores (a 0-d float tensor)."""
        ### BEGIN SOLUTION
        label_scores = logits.gather(1, labels.unsqueeze(1))      # (N, 1)
        larger = (logits > label_scores).sum(dim=1)               # how many classes beat the label
        return (larger < k).float().mean()
        ### END SOLUTION
    ''', "ch10-topk-accuracy"),
    tests("""
    check("ch10.topk_accuracy", topk_accuracy)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch10.topk_accuracy", topk_accuracy, [
        (randn(30, 10, seed=10101), np.random.default_rng(10102).integers(0, 10, 30), 2),
        (randn(12, 3, seed=10103), np.random.default_rng(10104).integers(0, 3, 12), 1),
        (randn(1, 7, seed=10105), np.array([6]), 5),
    ])
    ### END HIDDEN TESTS
    """, "ch10-topk-accuracy-tests", points=2),
    md(r"""
    ### Exercise 2: a confusion matrix

    Accuracy is one number; a **confusion matrix** shows *which* classes are mixed up. Entry `[i, j]` counts the
    images of true class `i` that were predicted as class `j`, so the diagonal holds the right answers. Write
    `confusion_matrix(predictions, labels, num_classes)` returning an int64 tensor of shape
    `(num_classes, num_classes)`, without a Python loop over the images.

    Hint: `F.one_hot(labels, num_classes)` has a single 1 per row; think about what
    `one_hot(labels).T @ one_hot(predictions)` counts.
    """),
    solution('''
    def confusion_matrix(predictions, labels, num_classes):
        """matrix[i, j] = how many images of true class i were predicted as class j."""
        ### BEGIN SOLUTION
        return F.one_hot(labels, num_classes).T @ F.one_hot(predictions, num_classes)
        ### END SOLUTION
    ''', "ch10-confusion-matrix"),
    tests("""
    check("ch10.confusion_matrix", confusion_matrix)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch10.confusion_matrix", confusion_matrix, [
        (np.random.default_rng(10201).integers(0, 4, 40), np.random.default_rng(10202).integers(0, 4, 40), 4),
        (np.array([2, 0, 1]), np.array([0, 1, 2]), 3),
        (np.zeros(5, dtype=np.int64), np.arange(5), 6),
    ])
    ### END HIDDEN TESTS
    """, "ch10-confusion-matrix-tests", points=2),
    md(r"""
    scikit-learn computes the same matrix (`sklearn.metrics.confusion_matrix`, which takes the labels first). Here it
    is for the pretrained LeNet-5, with the few test digits it gets wrong:
    """),
    code("""
    from sklearn.metrics import confusion_matrix as sklearn_confusion_matrix

    predictions = logits.argmax(dim=1)
    matrix = sklearn_confusion_matrix(labels.numpy(), predictions.numpy(), labels=range(10))
    wrong = (predictions != labels).nonzero().flatten().tolist()

    figure = plt.figure(figsize=(11, 3.6))
    axis = figure.add_subplot(1, 2, 1)
    axis.imshow(np.log1p(matrix), cmap="Blues")
    for (row, column), count in np.ndenumerate(matrix):
        if count:
            axis.text(column, row, count, ha="center", va="center", fontsize=7)
    axis.set_xlabel("predicted")
    axis.set_ylabel("true")
    axis.set_xticks(range(10))
    axis.set_yticks(range(10))
    axis.set_title("confusion matrix (360 test digits)")
    for position, index in enumerate(wrong[:6]):
        axis = figure.add_subplot(2, 6, 4 + position + (position // 3) * 3)
        axis.imshow(images[index, 0].numpy(), cmap="gray_r")
        axis.axis("off")
        axis.set_title(f"{predictions[index].item()} (true {labels[index].item()})", fontsize=8)
    plt.show()
    """),
    md(r"""
    ### Why `eval()` matters: batch norm

    LeNet-5 has no batch norm or dropout, so `train()` and `eval()` give the same outputs. The shipped ResNet-8 has
    batch norm (chapter 7), and there the mode matters: in `train()` mode every batch is normalised with its *own*
    statistics, so a prediction depends on the other images in the batch, and the running averages the model
    learned are overwritten as a side effect.
    """),
    code("""
    sevens = images[labels == 7][:20]                    # a batch in which every image is a 7
    with minitorch.no_grad():
        resnet = models.resnet8(weights="DEFAULT")       # returned in eval() mode
        print(f"eval():  {(resnet(sevens).argmax(dim=1) == 7).float().mean().item():.0%} of the twenty 7s are right")
        running_mean_before = resnet.bn1.running_mean.clone()
        resnet.train()                                   # the mistake: predicting in training mode
        print(f"train(): {(resnet(sevens).argmax(dim=1) == 7).float().mean().item():.0%} of the twenty 7s are right")
        alone = [resnet(images[i:i + 1]).argmax(dim=1).item() for i in range(20)]   # batches of one image
        print(f"train(), one image per batch: {np.mean(np.array(alone) == labels[:20].numpy()):.0%} right")
    print("and the running statistics were overwritten:",
          not minitorch.equal(running_mean_before, resnet.bn1.running_mean))
    """),
    md(r"""
    In training mode a batch of twenty 7s is normalised by its own statistics, so "what all these images share" (the
    very shape of a 7) is subtracted away, and the network sees almost nothing. One image per batch fails for the
    same reason. The running averages, learned over the whole training set, are what `eval()` uses, and merely
    running the model in `train()` mode overwrote them. `models.resnet8(weights=...)` returns the model in `eval()`
    mode; call `model.train()` only when you train, and `model.eval()` again before you measure.

    ## 3. What the network learned: filters and features

    LeNet-5's first layer has six 5×5 kernels (red positive, blue negative). Learned kernels are harder to read than
    hand-made ones, but their feature maps show what each one does: some respond to the stroke itself, others to one
    of its edges, others to the background around it.
    """),
    code("""
    kernels = model.features[0].weight.detach()          # (6, 1, 5, 5)
    with minitorch.no_grad():
        maps = model.features[1](model.features[0](images[:1]))[0]   # after the convolution and its ReLU
    figure, axes = plt.subplots(2, 7, figsize=(11, 3.4))
    axes[0, 0].imshow(images[0, 0].numpy(), cmap="gray_r")
    axes[0, 0].set_title("input", fontsize=9)
    axes[1, 0].axis("off")
    for k in range(6):
        largest = kernels[k].abs().max().item()                      # a symmetric color scale: white is 0
        axes[0, k + 1].imshow(kernels[k, 0].numpy(), cmap="RdBu_r", vmin=-largest, vmax=largest)
        axes[0, k + 1].set_title(f"kernel {k}", fontsize=9)
        axes[1, k + 1].imshow(maps[k].numpy(), cmap="gray_r")
    for axis in axes.flat:
        axis.set_xticks([])
        axis.set_yticks([])
    plt.show()
    """),
    md(r"""
    The thin lines along some borders are an effect of zero padding (chapter 7): after normalisation the background
    is $-1$, so the zeros padded around the image look like a bright edge to the kernels.

    A classifier is two parts: a **feature extractor** (everything up to the last layer) that turns an image into a
    vector, and a **head** (the last `nn.Linear`) that turns that vector into class scores. In LeNet-5 the head is
    `model.classifier[-1]`, and the features are the 84 numbers that go into it: the *penultimate activations*.

    Two ways to get them: run the layers before the head yourself (`nn.Sequential` can be sliced:
    `model.classifier[:-1]`), or attach a **forward hook** to a module, a function PyTorch calls with the module's
    input and output every time it runs (this works for any architecture, without knowing its `forward`).
    """),
    code("""
    print("the head:", model.classifier[-1])
    captured = {}
    hook = model.classifier[-2].register_forward_hook(lambda module, inputs, output: captured.update(features=output))
    with minitorch.no_grad():
        model(images)
    hook.remove()                                         # hooks stay until removed
    features = captured["features"]
    print("penultimate features:", tuple(features.shape))
    """),
    md(r"""
    Are these 84 numbers a better description of a digit than its 784 pixels? Project both onto their two main
    directions of variation (a principal component analysis, three lines of NumPy) and color each point by its
    label. In pixel space the digits overlap in one cloud; in feature space most digits already form their own
    cluster, even in only 2 of the 84 dimensions. A linear head only has to draw straight lines between clusters.
    """),
    code("""
    def principal_components(points, count=2):
        centered = points - points.mean(axis=0)
        _, _, directions = np.linalg.svd(centered, full_matrices=False)
        return centered @ directions[:count].T

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for axis, (name, points) in zip(axes, [("pixels (784 numbers)", images.reshape(len(images), -1).numpy()),
                                           ("LeNet-5 features (84 numbers)", features.numpy())]):
        projected = principal_components(points)
        scatter = axis.scatter(projected[:, 0], projected[:, 1], c=labels.numpy(), cmap="tab10", s=12)
        axis.set_title(name)
        axis.set_xticks([])
        axis.set_yticks([])
    figure.colorbar(scatter, ax=axes, ticks=range(10), label="digit")
    plt.show()
    """),
    md(r"""
    ### Exercise 3: feature extraction

    Write `lenet5_features(images)`: the 84 penultimate activations of the *pretrained* LeNet-5 for a batch of
    prepared images `(N, 1, 28, 28)`, as a tensor `(N, 84)` that does not require gradients. Load the model with the
    shipped weights inside the function (or reuse one loaded once), in `eval()` mode, under `minitorch.no_grad()`.
    Slicing or a hook, as you like.
    """),
    solution('''
    def lenet5_features(images):
        """The pretrained LeNet-5's 84 penultimate activations for images (N, 1, 28, 28)."""
        ### BEGIN SOLUTION
        network = models.lenet5(weights="DEFAULT").eval()
        with minitorch.no_grad():
            return network.classifier[:-1](network.features(images))
        ### END SOLUTION
    ''', "ch10-lenet5-features"),
    tests("""
    check("ch10.lenet5_features", lenet5_features)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch10.lenet5_features", lenet5_features, [
        (randn(5, 1, 28, 28, seed=10301),),
        (randn(1, 1, 28, 28, seed=10302, scale=0.5),),
    ])
    ### END HIDDEN TESTS
    """, "ch10-lenet5-features-tests", points=2),
    md(r"""
    ## 4. Freezing, and a new head

    To reuse the feature extractor for a new task, two moves:

    * **Freeze** it: `module.requires_grad_(False)` sets `requires_grad = False` on every parameter inside. Autograd
      then records nothing for them: backward stops at the head, no gradient is computed or stored for the frozen
      layers (faster, less memory), and the optimizer cannot change them even by weight decay. With few labelled
      examples, freezing also keeps a large network from memorising them.
    * **Replace the head**: assign a new `nn.Linear(84, number_of_new_classes)` to the last position. A new layer's
      parameters require gradients, so it is the only part that learns.

    The order matters: freeze first, then add the head (freezing afterwards would freeze the new head too).
    """),
    code("""
    transfer = models.lenet5(weights="DEFAULT")
    transfer.requires_grad_(False)                      # freeze everything...
    transfer.classifier[-1] = nn.Linear(84, 3)          # ...then a fresh head for a 3-class task
    trainable = [name for name, parameter in transfer.named_parameters() if parameter.requires_grad]
    print("trainable:", trainable)
    print("trainable numbers:", sum(p.numel() for p in transfer.parameters() if p.requires_grad),
          "of", sum(p.numel() for p in transfer.parameters()))

    loss = F.cross_entropy(transfer(images[:8]), minitorch.tensor([0, 1, 2, 0, 1, 2, 0, 1]))
    loss.backward()
    print("head gradient:", tuple(transfer.classifier[-1].weight.grad.shape),
          "| first convolution's gradient:", transfer.features[0].weight.grad)
    # Give the optimizer only what should learn:
    optimizer = optim.SGD([p for p in transfer.parameters() if p.requires_grad], lr=0.1)
    """),
    md(r"""
    ### Exercise 4: freeze all but the head

    Write `freeze_all_but_head(num_classes)`: load the pretrained LeNet-5, freeze it, give it a new head for
    `num_classes` classes, and return the number of trainable numbers (the total `numel()` of the parameters that
    still require gradients) as an `int`.
    """),
    solution('''
    def freeze_all_but_head(num_classes):
        """Pretrained LeNet-5, frozen, with a new head: how many numbers can still learn?"""
        ### BEGIN SOLUTION
        network = models.lenet5(weights="DEFAULT")
        network.requires_grad_(False)
        network.classifier[-1] = nn.Linear(84, num_classes)
        return sum(parameter.numel() for parameter in network.parameters() if parameter.requires_grad)
        ### END SOLUTION
    ''', "ch10-freeze-all-but-head"),
    tests("""
    check("ch10.freeze_all_but_head", freeze_all_but_head)
    ### BEGIN HIDDEN TESTS
    from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

    check_hidden("ch10.freeze_all_but_head", freeze_all_but_head, [(1,), (4,), (100,)])
    ### END HIDDEN TESTS
    """, "ch10-freeze-all-but-head-tests", points=1),
    md(r"""
    ## 5. A task the network never saw: mirrored digits, 5 examples per class

    Now a real test of transfer. The new task: recognise digits seen **in a mirror**. The inputs look different from
    anything the network trained on (a mirrored 2 or 3 is a new shape), and we have only **5 labelled examples per
    class**, 50 in all. The images come from the 360 test digits (never used to train the shipped weights): 50 to
    train on, the other 310 to measure accuracy.

    How does the pretrained network do on mirrored digits as it is?
    """),
    code("""
    mirrored = images.flip(-1)                           # left-right mirror of every test image
    label_array = labels.numpy()
    train_index = np.concatenate([np.flatnonzero(label_array == digit)[:5] for digit in range(10)])
    held_out_index = np.setdiff1d(np.arange(len(label_array)), train_index)
    train_x, train_y = mirrored[minitorch.from_numpy(train_index)], labels[minitorch.from_numpy(train_index)]
    eval_x, eval_y = mirrored[minitorch.from_numpy(held_out_index)], labels[minitorch.from_numpy(held_out_index)]
    print("train", tuple(train_x.shape), "| evaluate on", tuple(eval_x.shape))

    def evaluate(network):
        network.eval()
        with minitorch.no_grad():
            return (network(eval_x).argmax(dim=1) == eval_y).float().mean().item()

    print(f"pretrained LeNet-5 on mirrored digits, no training: {evaluate(models.lenet5(weights='DEFAULT')):.0%}")
    figure, axes = plt.subplots(1, 10, figsize=(10, 1.3))
    for digit, axis in enumerate(axes):
        axis.imshow(train_x[5 * digit, 0].numpy(), cmap="gray_r")
        axis.set_title(digit)
        axis.axis("off")
    plt.show()
    """),
    md(r"""
    It gets only the symmetric digits (0, 1, 8...) and a few lucky ones. Three ways to learn the new task, each
    given the **same 40 training steps** on the same batches of 25 images, with Adam:

    * **frozen**: pretrained features frozen, only a new head learns (learning rate 0.01);
    * **fine-tuned**: pretrained features and a new head all learn, the features with a ten times smaller learning
      rate (0.001) so they adapt without forgetting. One optimizer, two *parameter groups*, each with its own `lr`;
    * **from scratch**: the same architecture with random weights, all learning (learning rate 0.003, the best of
      0.001, 0.003 and 0.01 for it, to be fair).
    """),
    code("""
    def train_mirrored(strategy, steps=40, batch_size=25, seed=0):
        \"\"\"Train a LeNet-5 on the 50 mirrored digits
        return the held-out accuracy every 5 steps.\"\"\"
        minitorch.manual_seed(seed)                      # the same new head and the same batches for all
        if strategy == "from scratch":
            network = models.lenet5()
            optimizer = optim.Adam(network.parameters(), lr=0.003)
        else:
            network = models.lenet5(weights="DEFAULT")
            if strategy == "frozen":
                network.requires_grad_(False)
            network.classifier[-1] = nn.Linear(84, 10)  # a new head
            head = list(network.classifier[-1].parameters())
            groups = [{"params": head, "lr": 0.01}]
            if strategy == "fine-tuned":
                head_ids = {id(parameter) for parameter in head}
                body = [p for p in network.parameters() if id(p) not in head_ids]
                groups.append({"params": body, "lr": 0.001})
            optimizer = optim.Adam(groups)
        order = np.random.default_rng(seed)
        accuracies = [evaluate(network)]
        for step in range(1, steps + 1):
            network.train()
            batch = minitorch.from_numpy(order.permutation(len(train_y))[:batch_size])
            optimizer.zero_grad()
            F.cross_entropy(network(train_x[batch]), train_y[batch]).backward()
            optimizer.step()
            if step % 5 == 0:
                accuracies.append(evaluate(network))
        return accuracies

    curves = {strategy: train_mirrored(strategy) for strategy in ["frozen", "fine-tuned", "from scratch"]}
    steps = np.arange(0, 41, 5)
    for strategy, accuracies in curves.items():
        plt.plot(steps, accuracies, marker="o", label=strategy)
    plt.xlabel("training step (batches of 25)")
    plt.ylabel("accuracy on 310 held-out mirrored digits")
    plt.ylim(0, 1)
    plt.grid(alpha=0.3)
    plt.legend()
    plt.title("50 labelled examples, 40 steps each")
    plt.show()
    for strategy, accuracies in curves.items():
        print(f"{strategy:13s} after 10 steps {accuracies[2]:.0%}, after 40 steps {accuracies[-1]:.0%}")
    """),
    md(r"""
    What the curves say (the exact numbers move a little with the seed; the shape does not):

    * Both pretrained strategies are far ahead from the first steps: after 10 steps they are where training from
      scratch gets after 30 or 40. Features for strokes, loops and edges carry over to mirrored digits; only their
      arrangement is new.
    * **Fine-tuning beats freezing** here, because the inputs changed: letting the features adapt a little helps.
      With inputs like the original ones (new labels, same kind of images), a frozen extractor is often enough, and
      cheaper.
    * **From scratch** catches up slowly: by step 40 it reaches the frozen network, not the fine-tuned one.
      Mirrored digits are simple shapes and LeNet-5 is small, so with many more steps it would get close; on harder
      tasks (photos, few labels, big networks) the gap stays large, which is why almost every vision project starts
      from pretrained weights.

    ## 6. The same recipe in PyTorch

    Nothing here is special to minitorch. With torchvision, the same steps on an ImageNet network read:

    ```python
    from torchvision import models
    weights = models.ResNet18_Weights.IMAGENET1K_V1
    model = models.resnet18(weights=weights)            # downloads the file once, checks its hash
    preprocess = weights.transforms()                    # the preprocessing it was trained with
    model.requires_grad_(False)                          # freeze
    model.fc = torch.nn.Linear(model.fc.in_features, 5)  # a new head for 5 classes
    optimizer = torch.optim.Adam(model.fc.parameters(), lr=1e-3)
    ```

    Two habits from practice: keep the batch-norm layers of a frozen network in `eval()` mode while the head trains
    (their running statistics belong to the old data), and when fine-tuning everything, give the pretrained part a
    smaller learning rate than the new head, as above.

    ## Summary

    * Pretrained weights come as an enum member (`models.LeNet5_Weights.DEFAULT`) with the file, its
      preprocessing (`transforms()`) and facts (`meta`); `models.lenet5(weights="DEFAULT")` loads them after checking
      the file's hash. minitorch's weight files hold only data, never code.
    * Evaluate with the training preprocessing, in `eval()` mode, under `no_grad()`; top-k accuracy and the
      confusion matrix say more than accuracy alone.
    * Everything before the head is a feature extractor; slicing a `Sequential` or a forward hook gets its output.
    * Transfer learning: `requires_grad_(False)` freezes, a new `nn.Linear` head learns the new classes,
      fine-tuning lets the features adapt (smaller learning rate, parameter groups). With few labels, starting from
      pretrained weights gets to a good accuracy in far fewer steps (compare the accuracies after 10 steps printed
      above); on this small, easy task training from scratch narrows the gap by the end of the run.
    """),
    code("""
    summary("ch10")
    """),
]

write("10_pretrained_models", cells)
