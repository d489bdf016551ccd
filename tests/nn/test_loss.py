"""Every loss against PyTorch: values for each reduction and option, gradients for the input and (where
PyTorch differentiates it) the target, finite-difference checks of the functional forms, and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import nn
from tests.support import require_torch

RTOL, ATOL = 1e-6, 1e-10
REDUCTIONS = ["mean", "sum", "none"]


@pytest.fixture
def torch():
    return require_torch()


def _convert(lib, value, requires_grad):
    if isinstance(value, np.ndarray):
        tensor = lib.from_numpy(value.copy())
        return tensor.requires_grad_() if requires_grad and value.dtype.kind == "f" else tensor
    return value


def _check(torch, build, arrays, differentiable, rng):
    """``build(lib, *tensors)`` on both libraries; compare the loss and the gradients of ``differentiable`` inputs."""
    ours = [_convert(minitorch, a, i in differentiable) for i, a in enumerate(arrays)]
    theirs = [_convert(torch, a, i in differentiable) for i, a in enumerate(arrays)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        our_loss, their_loss = build(minitorch, *ours), build(torch, *theirs)
    np.testing.assert_allclose(our_loss.detach().numpy(), their_loss.detach().numpy(), rtol=RTOL, atol=ATOL)
    assert our_loss.shape == tuple(their_loss.shape)
    grad = rng.uniform(0.5, 1.5, tuple(their_loss.shape))
    our_loss.backward(minitorch.from_numpy(grad))
    their_loss.backward(torch.from_numpy(grad))
    for i in differentiable:
        np.testing.assert_allclose(ours[i].grad.numpy(), theirs[i].grad.numpy(), rtol=RTOL, atol=ATOL,
                                   err_msg=f"gradient of argument {i}")


def _module(lib, name, *args, **kwargs):
    return getattr(lib.nn, name)(*args, **kwargs)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, options", [("MSELoss", {}), ("L1Loss", {}), ("SmoothL1Loss", {}),
                                           ("SmoothL1Loss", {"beta": 0.5}), ("SmoothL1Loss", {"beta": 0.0}),
                                           ("HuberLoss", {}), ("HuberLoss", {"delta": 0.3})])
@pytest.mark.parametrize("shapes", [((4, 3), (4, 3)), ((2, 3, 2), (2, 3, 2)), ((4, 3), (3,))])
def test_regression_losses(torch, reduction, name, options, shapes):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(shapes[0]), rng.standard_normal(shapes[1])
    _check(torch, lambda lib, a, b: _module(lib, name, reduction=reduction, **options)(a, b), [x, y], [0, 1], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("function", ["mse_loss", "l1_loss", "huber_loss"])
def test_weighted_regression_losses(torch, reduction, function):
    rng = np.random.default_rng(1)
    x, y, w = rng.standard_normal((3, 4)), rng.standard_normal((3, 4)), rng.uniform(0.1, 2, (3, 4))
    _check(torch, lambda lib, a, b, c: getattr(lib.nn.functional, function)(a, b, reduction=reduction, weight=c),
           [x, y, w], [0, 1], rng)


def _labels(rng, shape, classes, ignore=None):
    labels = rng.integers(0, classes, shape)
    if ignore is not None:
        labels.flat[::3] = ignore
    return labels


CLASS_SHAPES = [((5, 4), (5,)), ((4,), ()), ((2, 4, 3), (2, 3)), ((2, 4, 2, 3), (2, 2, 3))]


@pytest.mark.parametrize("shapes", CLASS_SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"weight": True}, {"ignore_index": 1}, {"ignore_index": -100, "ignore": True},
                                     {"label_smoothing": 0.2}, {"weight": True, "ignore_index": 2,
                                                                "label_smoothing": 0.3}])
def test_cross_entropy_and_nll_with_class_indices(torch, shapes, reduction, options):
    rng = np.random.default_rng(2)
    options = dict(options)
    input_shape, target_shape = shapes
    classes = input_shape[0] if len(input_shape) == 1 else input_shape[1]
    ignore = options.pop("ignore", None) and -100
    if "ignore_index" in options and ignore is None and options["ignore_index"] >= 0:
        ignore = options["ignore_index"]
    x = rng.standard_normal(input_shape) * 3
    labels = _labels(rng, target_shape, classes, ignore)
    weight = rng.uniform(0.2, 2.0, classes) if options.pop("weight", False) else None
    arrays = [x, np.asarray(labels, dtype=np.int64)] + ([weight] if weight is not None else [])

    def cross_entropy(lib, logits, target, *rest):
        return _module(lib, "CrossEntropyLoss", *rest, reduction=reduction, **options)(logits, target)

    _check(torch, cross_entropy, arrays, [0], rng)
    if "label_smoothing" not in options:
        def nll(lib, logits, target, *rest):
            log_probs = lib.nn.functional.log_softmax(logits, 0 if logits.dim() == 1 else 1)
            return _module(lib, "NLLLoss", *rest, reduction=reduction, **options)(log_probs, target)

        _check(torch, nll, arrays, [0], rng)


@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 4, 3)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"weight": True}, {"label_smoothing": 0.25},
                                     {"weight": True, "label_smoothing": 0.1}])
def test_cross_entropy_with_class_probabilities(torch, shape, reduction, options):
    rng = np.random.default_rng(3)
    options = dict(options)
    classes = shape[0] if len(shape) == 1 else shape[1]
    probabilities = rng.uniform(0, 1, shape)
    probabilities /= probabilities.sum(axis=0 if len(shape) == 1 else 1, keepdims=True)
    arrays = [rng.standard_normal(shape), probabilities]
    if options.pop("weight", False):
        arrays.append(rng.uniform(0.2, 2.0, classes))

    def build(lib, logits, target, *rest):
        return lib.nn.functional.cross_entropy(logits, target, *rest, reduction=reduction, **options)

    _check(torch, build, arrays, [0, 1], rng)


def test_cross_entropy_is_stable_for_huge_logits(torch):
    logits = np.array([[1000.0, -1000.0, 0.0], [-500.0, 500.0, 499.0]])
    rng = np.random.default_rng(4)
    _check(torch, lambda lib, a, b: lib.nn.functional.cross_entropy(a, b), [logits, np.array([1, 2])], [0], rng)
    assert np.isfinite(F.cross_entropy(minitorch.from_numpy(logits), minitorch.tensor([1, 2])).item())


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight_shape", [None, (3,), (4, 3)])
def test_bce(torch, reduction, weight_shape):
    rng = np.random.default_rng(5)
    x = rng.uniform(0.02, 0.98, (4, 3))
    x[0, 0], x[0, 1] = 0.0, 1.0  # the clamped logs: PyTorch's loss is 100 there, and its gradient finite
    arrays = [x, rng.uniform(0, 1, (4, 3))] + ([rng.uniform(0.5, 2, weight_shape)] if weight_shape else [])
    _check(torch, lambda lib, *t: _module(lib, "BCELoss", *t[2:], reduction=reduction)(t[0], t[1]), arrays, [0], rng)
    arrays[0][0, :2] = 0.5
    _check(torch, lambda lib, *t: lib.nn.functional.binary_cross_entropy(t[0], t[1], *t[2:], reduction=reduction),
           arrays, [0, 1], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weight, pos_weight", [(False, False), (True, False), (False, True), (True, True)])
def test_bce_with_logits(torch, reduction, weight, pos_weight):
    rng = np.random.default_rng(6)
    logits = rng.standard_normal((4, 3)) * 4
    logits[0] = [0.0, 60.0, -60.0]  # exactly 0 and far beyond exp's comfortable range
    arrays = [logits, rng.uniform(0, 1, (4, 3))]
    weights = {}
    if weight:
        weights["weight"] = len(arrays)
        arrays.append(rng.uniform(0.5, 2, (3,)))
    if pos_weight:
        weights["pos_weight"] = len(arrays)
        arrays.append(rng.uniform(0.5, 3, (3,)))

    def build(lib, *tensors):
        keywords = {key: tensors[index] for key, index in weights.items()}
        return lib.nn.functional.binary_cross_entropy_with_logits(tensors[0], tensors[1], reduction=reduction,
                                                                  **keywords)

    _check(torch, build, arrays, [0, 1], rng)  # PyTorch does not differentiate weight and pos_weight
    module_weights = {key: minitorch.from_numpy(arrays[index]) for key, index in weights.items()}
    assert sorted(nn.BCEWithLogitsLoss(**module_weights).state_dict()) == sorted(module_weights)


@pytest.mark.parametrize("reduction", ["batchmean", "mean", "sum", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(torch, reduction, log_target):
    rng = np.random.default_rng(7)
    log_probs = np.log(rng.dirichlet(np.ones(4), 3))
    target = rng.dirichlet(np.ones(4), 3)
    target = np.log(target) if log_target else target
    _check(torch, lambda lib, a, b: _module(lib, "KLDivLoss", reduction=reduction, log_target=log_target)(a, b),
           [log_probs, target], [0, 1], rng)


def test_kl_div_zero_target_contributes_nothing(torch):
    rng = np.random.default_rng(8)
    target = np.array([[0.0, 0.5, 0.5]])
    _check(torch, lambda lib, a, b: lib.nn.functional.kl_div(a, b, reduction="sum"),
           [np.log(np.array([[0.2, 0.3, 0.5]])), target], [0], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.4, -0.3])
@pytest.mark.parametrize("batched", [True, False])
def test_cosine_embedding_loss(torch, reduction, margin, batched):
    rng = np.random.default_rng(9)
    shape = (5, 3) if batched else (3,)
    target = np.array([1.0, -1.0, -1.0, 1.0, -1.0]) if batched else np.array(-1.0)
    _check(torch, lambda lib, a, b, y: _module(lib, "CosineEmbeddingLoss", margin, reduction=reduction)(a, b, y),
           [rng.standard_normal(shape), rng.standard_normal(shape), target], [0, 1], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.5])
def test_margin_ranking_loss(torch, reduction, margin):
    rng = np.random.default_rng(10)
    target = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0])
    _check(torch, lambda lib, a, b, y: _module(lib, "MarginRankingLoss", margin, reduction=reduction)(a, b, y),
           [rng.standard_normal(6), rng.standard_normal(6), target], [0, 1, 2], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"margin": 2.0}, {"p": 1.0}, {"p": 3.0, "swap": True}, {"swap": True},
                                     {"eps": 1e-3}])
@pytest.mark.parametrize("shape", [(4, 3), (3,)])
def test_triplet_margin_loss(torch, reduction, options, shape):
    rng = np.random.default_rng(11)
    arrays = [rng.standard_normal(shape) for _ in range(3)]
    arrays[2] = arrays[0] + 0.3 * arrays[2]  # some negatives close enough for the hinge to be active
    _check(torch, lambda lib, a, p, n: _module(lib, "TripletMarginLoss", reduction=reduction, **options)(a, p, n),
           arrays, [0, 1, 2], rng)


def test_losses_gradcheck():
    rng = np.random.default_rng(12)

    def leaf(*shape, low=None, high=None):
        data = rng.standard_normal(shape) if low is None else rng.uniform(low, high, shape)
        return minitorch.from_numpy(data).requires_grad_()

    gradcheck, gradgradcheck = minitorch.autograd.gradcheck, minitorch.autograd.gradgradcheck
    x, y = leaf(3, 4), leaf(3, 4)
    for function in (F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss,
                     lambda a, b: F.smooth_l1_loss(a, b, beta=0.5, reduction="sum")):
        assert gradcheck(function, (x, y))
    assert gradgradcheck(F.mse_loss, (x, y))
    assert gradgradcheck(lambda a, b: F.huber_loss(a, b, delta=0.5), (x, y))
    labels, weight = minitorch.tensor([0, 3, 1]), minitorch.from_numpy(rng.uniform(0.5, 2, 4))
    cross_entropy = lambda a: F.cross_entropy(a, labels, weight=weight, label_smoothing=0.1)  # noqa: E731
    assert gradcheck(cross_entropy, (x,))
    assert gradgradcheck(cross_entropy, (x,))
    assert gradgradcheck(lambda a: F.cross_entropy(a, labels, ignore_index=3), (x,))
    for reduction in REDUCTIONS:  # the fused CrossEntropy op (2-D logits, plain class indices)
        assert gradcheck(lambda a, reduction=reduction: F.cross_entropy(a, labels, reduction=reduction), (x,))
        assert gradgradcheck(lambda a, reduction=reduction: F.cross_entropy(a, labels, reduction=reduction), (x,))
    probabilities = leaf(3, 4, low=0.1, high=1.0)
    assert gradcheck(lambda a, p: F.cross_entropy(a, p), (x, probabilities))
    assert gradgradcheck(lambda a, p: F.cross_entropy(a, p), (x, probabilities))
    assert gradcheck(lambda a: F.nll_loss(a, labels, weight=weight), (x,))
    assert gradcheck(lambda a: F.nll_loss(a.reshape(1, 3, 4), minitorch.tensor([[0, 2, 1, 1]])), (x,))
    p, t = leaf(3, 4, low=0.1, high=0.9), leaf(3, 4, low=0.0, high=1.0)
    assert gradcheck(F.binary_cross_entropy, (p, t))
    assert gradgradcheck(F.binary_cross_entropy, (p, t))
    # The fused BinaryCrossEntropyWithLogits op, differentiated in the logits and the target (PyTorch
    # refuses a pos_weight or weight that requires grad).
    pos_weight = minitorch.from_numpy(rng.uniform(0.5, 2.0, 4))
    element_weight = minitorch.from_numpy(rng.uniform(0.5, 2.0, (3, 4)))
    for reduction in REDUCTIONS:
        for options in ({}, {"pos_weight": pos_weight}, {"weight": element_weight, "pos_weight": pos_weight}):
            def with_logits(a, b, reduction=reduction, options=options):
                return F.binary_cross_entropy_with_logits(a, b, reduction=reduction, **options)
            assert gradcheck(with_logits, (x, t))
            assert gradgradcheck(with_logits, (x, t))
        # The fused MseLoss op, also with a target that broadcasts.
        assert gradcheck(lambda a, b, reduction=reduction: F.mse_loss(a, b, reduction=reduction), (x, y))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the size warning is the point of this case
            assert gradgradcheck(lambda a, b, reduction=reduction: F.mse_loss(a, b, reduction=reduction),
                                 (x, leaf(4)))
    log_probs, target = leaf(3, 4, low=-3.0, high=-0.1), leaf(3, 4, low=0.1, high=1.0)
    assert gradcheck(lambda a, b: F.kl_div(a, b, reduction="batchmean"), (log_probs, target))
    assert gradcheck(lambda a, b: F.kl_div(a, b, reduction="sum", log_target=True), (log_probs, log_probs * 0.5))
    signs = minitorch.tensor([1.0, -1.0, -1.0])
    assert gradcheck(lambda a, b: F.cosine_embedding_loss(a, b, signs, margin=-0.5), (x, y))
    assert gradcheck(lambda a, b: F.margin_ranking_loss(a, b, signs, margin=0.3), (x[:, 0], y[:, 0]))
    anchor, positive, negative = leaf(3, 4), leaf(3, 4), leaf(3, 4)
    triplets = (anchor, positive, negative)
    assert gradcheck(lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=3.0, swap=True), triplets)
    assert gradgradcheck(lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=3.0), (anchor, positive, negative))


def test_module_reprs_and_state(torch):
    for name, kwargs in [("CrossEntropyLoss", {"label_smoothing": 0.1}), ("MSELoss", {}), ("HuberLoss", {"delta": 2}),
                         ("TripletMarginLoss", {"swap": True}), ("KLDivLoss", {"log_target": True})]:
        assert repr(_module(minitorch, name, **kwargs)) == repr(_module(torch, name, **kwargs))
    weight = np.array([1.0, 2.0, 3.0])
    assert list(nn.CrossEntropyLoss(weight=minitorch.from_numpy(weight)).state_dict()) == list(
        torch.nn.CrossEntropyLoss(weight=torch.from_numpy(weight)).state_dict())
    assert list(nn.NLLLoss().state_dict()) == []
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert nn.MSELoss(size_average=False).reduction == "sum"


def test_empty_and_fully_ignored_batches_give_nan(torch):
    assert np.isnan(F.cross_entropy(minitorch.randn(0, 3), minitorch.zeros(0, dtype=minitorch.int64)).item())
    assert np.isnan(F.cross_entropy(minitorch.randn(3, 3), minitorch.tensor([-100, -100, -100])).item())


def _raises_like(ours_call, theirs_call):
    with pytest.raises(Exception) as theirs:
        theirs_call()
    with pytest.raises(type(theirs.value)) as ours:
        ours_call()
    assert str(ours.value).replace("minitorch", "torch") == str(theirs.value)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1])),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1, 5])),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1, -3])),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(3, 4), lib.tensor([0, 1, 4])),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0.0, 1, 2])),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1, 2], dtype=lib.int32)),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1, 2]), weight=lib.ones(3)),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.rand(3, 4), weight=lib.ones(3)),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.rand(3, 4), ignore_index=1),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.ones(3, 4, dtype=lib.int64)),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1, 2]), label_smoothing=1.5),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.tensor([0, 1, 2]), reduction="avg"),
    lambda lib: lib.nn.functional.cross_entropy(lib.randn(3, 4), lib.rand(3, 5)),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(2, 3, 4), lib.tensor([[0, 1, 2], [0, 0, 0]])),
    lambda lib: lib.nn.functional.nll_loss(lib.tensor(1.0), lib.tensor(1)),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(3), lib.tensor([1, 2])),
    lambda lib: lib.nn.functional.nll_loss(lib.randn(3, 4), lib.tensor([[0, 1, 2]])),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.rand(3), lib.rand(2)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([1.5]), lib.rand(1)),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.rand(3), lib.rand(2)),
    lambda lib: lib.nn.functional.smooth_l1_loss(lib.ones(2), lib.ones(2), beta=-1.0),
    lambda lib: lib.nn.functional.huber_loss(lib.ones(2), lib.ones(2), delta=0.0),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(2), lib.ones(2), weight=lib.ones(3)),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(2), lib.ones(2), reduction="avg"),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(2), lib.ones(2), weight=lib.ones(2), reduction="avg"),
    lambda lib: lib.nn.functional.kl_div(lib.ones(2), lib.ones(2), reduction="foo"),
    lambda lib: lib.nn.functional.cosine_embedding_loss(lib.ones(3, 4), lib.ones(3, 4), lib.ones(3, 1)),
    lambda lib: lib.nn.functional.cosine_embedding_loss(lib.ones(3, 4), lib.ones(3, 4), lib.ones(())),
    lambda lib: lib.nn.functional.cosine_embedding_loss(lib.ones(4), lib.ones(4), lib.ones(3)),
    lambda lib: lib.nn.functional.margin_ranking_loss(lib.ones(3, 4), lib.ones(3, 4), lib.ones(3)),
    lambda lib: lib.nn.functional.triplet_margin_loss(lib.ones(3, 4), lib.ones(3, 4), lib.ones(3, 4), margin=0),
    lambda lib: lib.nn.functional.triplet_margin_loss(lib.ones(3, 4), lib.ones(3, 4), lib.ones(4)),
    lambda lib: lib.nn.TripletMarginLoss(margin=-1.0),
])
def test_errors_match_torch(torch, call):
    _raises_like(lambda: call(minitorch), lambda: call(torch))


# -- the hinge, margin and likelihood losses ------------------------------------------------------------------
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [1.0, 0.3])
def test_hinge_embedding_loss(torch, reduction, margin):
    rng = np.random.default_rng(21)
    target = np.array([[1.0, -1.0, -1.0], [1.0, -1.0, 1.0]])
    _check(torch, lambda lib, x, y: _module(lib, "HingeEmbeddingLoss", margin, reduction=reduction)(x, y),
           [rng.uniform(0.05, 1.5, (2, 3)), target], [0], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(torch, reduction):
    rng = np.random.default_rng(22)
    target = np.where(rng.random((4, 3)) < 0.5, -1.0, 1.0)
    _check(torch, lambda lib, x, y: _module(lib, "SoftMarginLoss", reduction=reduction)(x, y),
           [rng.standard_normal((4, 3)), target], [0], rng)  # PyTorch refuses a target that requires grad


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin_loss(torch, reduction, weighted):
    rng = np.random.default_rng(23)
    weight = rng.uniform(0.5, 2.0, 5)

    def build(lib, x, y):
        module_weight = lib.from_numpy(weight.copy()) if weighted else None
        return _module(lib, "MultiLabelSoftMarginLoss", module_weight, reduction=reduction)(x, y)

    _check(torch, build, [rng.standard_normal((4, 5)), (rng.random((4, 5)) < 0.4).astype(np.float64)], [0, 1], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"log_input": False}, {"full": True}, {"log_input": False, "full": True,
                                                                                "eps": 1e-3}])
def test_poisson_nll_loss(torch, reduction, options):
    rng = np.random.default_rng(24)
    rates = rng.uniform(0.1, 2.0, (4, 3)) if options.get("log_input") is False else rng.standard_normal((4, 3))
    counts = rng.integers(0, 6, (4, 3)).astype(np.float64)
    _check(torch, lambda lib, x, y: _module(lib, "PoissonNLLLoss", reduction=reduction, **options)(x, y),
           [rates, counts], [0, 1], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("var_shape", [(4, 3), (4,), (4, 1)])
@pytest.mark.parametrize("options", [{}, {"full": True}, {"eps": 0.5}])
def test_gaussian_nll_loss(torch, reduction, var_shape, options):
    rng = np.random.default_rng(25)
    variance = rng.uniform(0.1, 2.0, var_shape)
    _check(torch, lambda lib, x, y, v: _module(lib, "GaussianNLLLoss", reduction=reduction, **options)(x, y, v),
           [rng.standard_normal((4, 3)), rng.standard_normal((4, 3)), variance], [0, 1, 2], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"p": 2}, {"margin": 0.3}, {"weighted": True}, {"p": 2, "weighted": True}])
@pytest.mark.parametrize("batched", [True, False])
def test_multi_margin_loss(torch, reduction, options, batched):
    rng = np.random.default_rng(26)
    options = dict(options)
    weighted = options.pop("weighted", False)
    weight = rng.uniform(0.5, 2.0, 4)
    scores = rng.standard_normal((5, 4)) if batched else rng.standard_normal(4)
    target = np.array([0, 3, 1, 1, 2]) if batched else np.array(2)

    def build(lib, x, y):
        module_weight = lib.from_numpy(weight.copy()) if weighted else None
        return _module(lib, "MultiMarginLoss", weight=module_weight, reduction=reduction, **options)(x, y)

    _check(torch, build, [scores, target], [0], rng)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("batched", [True, False])
def test_multilabel_margin_loss(torch, reduction, batched):
    rng = np.random.default_rng(27)
    # targets end at the first -1; a repeated label counts twice, as in PyTorch
    target = np.array([[3, 0, -1, 1], [1, 2, 3, -1], [2, 2, -1, -1]]) if batched else np.array([3, 0, -1, 1])
    scores = rng.standard_normal(target.shape) * 0.5
    _check(torch, lambda lib, x, y: _module(lib, "MultiLabelMarginLoss", reduction=reduction)(x, y),
           [scores, target], [0], rng)


def test_new_losses_gradcheck():
    rng = np.random.default_rng(28)
    x = minitorch.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    labels = minitorch.tensor([0, 3, 1])
    multilabel = minitorch.tensor([[1, 2, -1, 0], [3, -1, 0, 0], [0, 1, 2, 3]])
    signs = minitorch.tensor(np.where(rng.random((3, 4)) < 0.5, -1.0, 1.0))
    variance = minitorch.tensor(rng.uniform(0.5, 2.0, (3, 4)), requires_grad=True)
    checks = [
        (lambda a: F.soft_margin_loss(a, signs), (x,)),
        (lambda a: F.multilabel_soft_margin_loss(a, (signs > 0).double()), (x,)),
        (lambda a: F.poisson_nll_loss(a, signs.abs() * 2, full=True), (x,)),
        (lambda a, v: F.gaussian_nll_loss(a, signs, v, full=True), (x, variance)),
        (lambda a: F.multi_margin_loss(a * 0.3, labels, p=2), (x,)),
        (lambda a: F.multilabel_margin_loss(a * 0.3, multilabel), (x,)),
    ]
    for function, inputs in checks:
        assert minitorch.autograd.gradcheck(function, inputs)


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.functional.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3)),
    lambda lib: lib.nn.functional.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), -lib.ones(2, 3)),
    lambda lib: lib.nn.functional.multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1]), p=3),
    lambda lib: lib.nn.MultiMarginLoss(p=3),
])
def test_new_loss_errors_match_torch(torch, call):
    outcomes = []
    for lib in (minitorch, torch):
        with pytest.raises(Exception) as caught:
            call(lib)
        outcomes.append((type(caught.value).__name__, str(caught.value)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name, options", [("PairwiseDistance", {}), ("PairwiseDistance", {"p": 1.0, "keepdim": True}),
                                           ("CosineSimilarity", {}), ("CosineSimilarity", {"dim": 0, "eps": 1e-3})])
def test_distance_modules(torch, name, options):
    rng = np.random.default_rng(29)
    _check(torch, lambda lib, a, b: _module(lib, name, **options)(a, b),
           [rng.standard_normal((4, 3)), rng.standard_normal((4, 3))], [0, 1], rng)


@pytest.mark.parametrize("call", [
    "lib.nn.functional.mse_loss(x, y)", "lib.nn.functional.mse_loss(x, y, reduction='none')",
    "lib.nn.MSELoss(reduction='sum')(x, y)", "lib.nn.functional.binary_cross_entropy_with_logits(x, y)",
    "lib.nn.BCEWithLogitsLoss(pos_weight=lib.ones(3))(x, y)",
    "lib.nn.functional.binary_cross_entropy_with_logits(x, y, weight=lib.ones(3), reduction='none')",
])
def test_losses_are_one_node_as_in_pytorch(torch, call):
    """``loss.grad_fn`` is the loss's own node (``MseLossBackward0``), not the last op of a chain."""
    names = []
    for lib in (minitorch, torch):
        x = lib.tensor([[0.2, -1.0, 3.0], [0.5, 0.5, -2.0]], requires_grad=True)
        y = lib.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 0.5]])
        loss = eval(call, {"lib": lib, "x": x, "y": y})
        names.append((loss.grad_fn.name(), [type(node).__name__ for node, _ in loss.grad_fn.next_functions
                                            if node is not None]))
    assert names[0] == names[1]


@pytest.mark.parametrize("argument", ["weight", "pos_weight"])
def test_bce_with_logits_refuses_weights_that_require_grad(torch, argument):
    messages = []
    for lib in (minitorch, torch):
        x, y = lib.zeros(2, 3, requires_grad=True), lib.ones(2, 3)
        with pytest.raises(RuntimeError) as error:
            lib.nn.functional.binary_cross_entropy_with_logits(x, y, **{argument: lib.ones(3, requires_grad=True)})
        messages.append(str(error.value))
    assert messages[0] == messages[1]
    with minitorch.no_grad():  # nothing is recorded, so nothing is refused (as in PyTorch)
        minitorch.nn.functional.binary_cross_entropy_with_logits(
            minitorch.zeros(2, 3), minitorch.ones(2, 3), weight=minitorch.ones(3, requires_grad=True))
