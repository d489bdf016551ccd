"""scikit-learn estimators around any minitorch ``nn.Module``: ``NeuralNetClassifier`` and ``NeuralNetRegressor``.

    >>> from sklearn.datasets import load_iris
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> from minitorch.interop.sklearn import NeuralNetClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> model = make_pipeline(StandardScaler(), NeuralNetClassifier(max_epochs=50, random_state=0)).fit(X, y)
    >>> model.score(X, y) > 0.9
    True

What the network is (the ``module`` argument):

* ``None`` (default): a multilayer perceptron, ``Linear -> ReLU`` for each size in
  ``hidden_layer_sizes``, then ``Linear`` to the outputs, sized from the data at ``fit``.
* a callable, such as a class: called as ``module(n_features, n_outputs)`` at each ``fit``
  (``module=minitorch.nn.Linear`` is logistic / linear regression).
* an ``nn.Module`` instance: each ``fit`` trains a deep copy of it, starting from its weights
  as given (so a pretrained network is fine-tuned), and never changes the one you passed.

A classifier's network outputs one score (logit) per class and is trained with
cross-entropy; a regressor's outputs one value per target, trained with mean squared
error. Training is mini-batch gradient descent with ``optimizer`` (any ``minitorch.optim``
class) for ``max_epochs`` passes over the data. With ``random_state`` set, fitting is
deterministic: the weights, the shuffling and any dropout draw from a seeded generator,
and the global one is restored afterwards.

The estimators follow scikit-learn's conventions (``get_params`` / ``set_params``, no work
in ``__init__``, fitted attributes ending in ``_``), which is what lets ``Pipeline``,
``GridSearchCV`` and ``cross_val_score`` clone and refit them; they pass
``sklearn.utils.estimator_checks.check_estimator``.
"""

from __future__ import annotations

import copy
from contextlib import contextmanager

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _dtype, _random
from .._creation import from_numpy
from ..autograd.grad_mode import no_grad
from ..nn import functional as F
from ..nn.modules.activation import ReLU
from ..nn.modules.container import Sequential
from ..nn.modules.linear import Linear
from ..nn.modules.module import Module
from ..optim import Adam

__all__ = ["NeuralNetClassifier", "NeuralNetRegressor"]


@contextmanager
def _seeded(seed: int):
    """Run with minitorch's default generator seeded, then put its previous state back."""
    saved = _random.get_rng_state()
    _random.manual_seed(seed)
    try:
        yield
    finally:
        _random.set_rng_state(saved)


class _NeuralNet(BaseEstimator):
    """What the classifier and the regressor share: building the network and the training loop."""

    def __init__(self, module=None, *, hidden_layer_sizes=(64,), optimizer=Adam, lr=0.01, weight_decay=0.0,
                 max_epochs=100, batch_size=64, dtype="float32", random_state=None, verbose=False):
        self.module = module
        self.hidden_layer_sizes = hidden_layer_sizes
        self.optimizer = optimizer
        self.lr = lr
        self.weight_decay = weight_decay
        self.max_epochs = max_epochs
        self.batch_size = batch_size
        self.dtype = dtype
        self.random_state = random_state
        self.verbose = verbose

    # -- building -----------------------------------------------------------------------------
    def _numpy_dtype(self) -> np.dtype:
        dtype = np.dtype(self.dtype)
        if dtype not in (np.float32, np.float64):
            raise ValueError(f"dtype should be 'float32' or 'float64', got {self.dtype!r}")
        return dtype

    def _build_module(self, n_features: int, n_outputs: int) -> Module:
        if self.module is None:
            layers, width = [], n_features
            for size in self.hidden_layer_sizes:
                layers += [Linear(width, int(size)), ReLU()]
                width = int(size)
            network = Sequential(*layers, Linear(width, n_outputs))
        elif isinstance(self.module, Module):
            network = copy.deepcopy(self.module)
        elif callable(self.module):
            network = self.module(n_features, n_outputs)
            if not isinstance(network, Module):
                raise TypeError(f"module(n_features, n_outputs) should return an nn.Module, got {type(network)}")
        else:
            raise TypeError(f"module should be None, an nn.Module or a callable that builds one, got {self.module!r}")
        return network.to(_dtype.from_numpy_dtype(self._numpy_dtype()))

    def _as_tensor(self, X: np.ndarray):
        return from_numpy(np.array(X, dtype=self._numpy_dtype(), order="C"))

    # -- training ------------------------------------------------------------------------------
    def _train(self, X: np.ndarray, targets, n_outputs: int):
        """Build the network and run ``max_epochs`` epochs of mini-batch training; returns self."""
        seed = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        inputs = self._as_tensor(X)
        with _seeded(seed):
            network = self._build_module(X.shape[1], n_outputs)
            optimizer = self.optimizer(network.parameters(), lr=self.lr, weight_decay=self.weight_decay)
            order = np.random.default_rng(seed)
            n_samples = X.shape[0]
            batch_size = max(1, min(int(self.batch_size), n_samples))
            losses = []
            network.train()
            for epoch in range(int(self.max_epochs)):
                permutation = order.permutation(n_samples)
                total = 0.0
                for start in range(0, n_samples, batch_size):
                    batch = from_numpy(permutation[start:start + batch_size])
                    optimizer.zero_grad()
                    loss = self._loss(network(inputs[batch]), targets[batch])
                    loss.backward()
                    optimizer.step()
                    total += float(loss.item()) * len(batch)
                losses.append(total / n_samples)
                if self.verbose:
                    print(f"epoch {epoch + 1:4d}  loss {losses[-1]:.6f}")
        network.eval()
        self.module_ = network
        self.loss_curve_ = losses
        return self

    def _forward(self, X) -> np.ndarray:
        """The network's outputs for ``X`` as a float64 array (checked against the fitted features)."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        with no_grad():
            outputs = self.module_(self._as_tensor(X))
        return outputs.numpy(force=True).astype(np.float64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags


class NeuralNetClassifier(ClassifierMixin, _NeuralNet):
    """A classifier: the network's outputs are class scores, trained with cross-entropy.

    Fitted attributes: ``classes_`` (the labels, sorted), ``module_`` (the trained network),
    ``loss_curve_`` (mean training loss per epoch), ``n_features_in_``.
    """

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=[np.float64, np.float32])
        check_classification_targets(y)
        kind = type_of_target(y)
        if kind not in ("binary", "multiclass"):
            raise ValueError(f"NeuralNetClassifier supports binary and multiclass targets, got {kind} targets")
        self.classes_, encoded = np.unique(y, return_inverse=True)
        # At least two outputs, so that a single-class training set still gives a valid softmax.
        return self._train(X, from_numpy(encoded.astype(np.int64)), max(2, len(self.classes_)))

    @staticmethod
    def _loss(scores, labels):
        return F.cross_entropy(scores, labels)  # the mean of -log softmax(scores)[label]

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities, one column per entry of ``classes_`` (softmax of the scores)."""
        scores = self._forward(X)[:, : len(self.classes_)]
        scores -= scores.max(axis=1, keepdims=True)  # softmax is unchanged by a shift; this keeps exp finite
        probabilities = np.exp(scores)
        return probabilities / probabilities.sum(axis=1, keepdims=True)

    def predict_log_proba(self, X) -> np.ndarray:
        return np.log(self.predict_proba(X))

    def predict(self, X) -> np.ndarray:
        scores = self._forward(X)[:, : len(self.classes_)]
        return self.classes_[np.argmax(scores, axis=1)]


class NeuralNetRegressor(RegressorMixin, _NeuralNet):
    """A regressor: one network output per target, trained with mean squared error.

    ``y`` may be 1-D (one target) or 2-D (several); ``predict`` returns the same shape.
    Fitted attributes: ``module_``, ``loss_curve_``, ``n_features_in_``, ``n_outputs_``.
    """

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=[np.float64, np.float32], multi_output=True, y_numeric=True)
        self._single_target = y.ndim == 1
        targets = y.reshape(len(y), -1)
        self.n_outputs_ = targets.shape[1]
        return self._train(X, self._as_tensor(targets), self.n_outputs_)

    @staticmethod
    def _loss(predictions, targets):
        return F.mse_loss(predictions, targets)

    def predict(self, X) -> np.ndarray:
        outputs = self._forward(X)
        return outputs[:, 0] if self._single_target else outputs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags
