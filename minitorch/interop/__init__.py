"""minitorch next to the rest of the scientific Python stack.

* NumPy: ``minitorch.from_numpy`` / ``Tensor.numpy()`` share memory, ``np.asarray(t)``
  works, and NumPy ufuncs on tensors return tensors, as in PyTorch.
* DLPack: ``minitorch.from_dlpack`` and ``Tensor.__dlpack__`` exchange memory with PyTorch,
  NumPy, CuPy and JAX without copying (``minitorch/_dlpack.py``).
* ``minitorch.interop.scipy``: ``scipy.optimize.minimize`` with minitorch computing the loss
  and its gradient (``value_and_grad``, ``minimize``, ``minimize_module``).
* ``minitorch.interop.sklearn``: ``NeuralNetClassifier`` / ``NeuralNetRegressor``, scikit-learn
  estimators around any ``nn.Module`` (Pipeline, GridSearchCV, cross_val_score).

The submodules import SciPy and scikit-learn, so they are imported on demand:
``from minitorch.interop.sklearn import NeuralNetClassifier``.
"""

__all__ = ["scipy", "sklearn"]
