"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` over whole sequences, and one-step cells.

A recurrent layer reads a sequence one step at a time and carries a hidden state ``h``
from step to step: ``h_t = cell(x_t, h_{t-1})``. The cells differ in how they mix the
two:

* ``RNN``:  ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``).
* ``LSTM``: four gates ``i, f, g, o`` and a cell state ``c`` that the forget gate ``f``
  carries forward almost unchanged, so gradients survive long sequences:
  ``c_t = f * c_{t-1} + i * g``, ``h_t = o * tanh(c_t)``.
* ``GRU``:  gates ``r, z`` and a candidate ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``;
  ``h_t = (1 - z) * n + z * h_{t-1}``.

Parameters have PyTorch's names and layouts (``weight_ih_l0``, ``weight_hh_l0``,
``bias_ih_l0``, ``bias_hh_l0``, ``..._reverse`` for the backward direction of a
bidirectional layer, ``weight_hr_l0`` for an LSTM projection), gates stacked in PyTorch's
order, so a ``state_dict`` moves between the two libraries unchanged. The math lives in
``nn.functional`` (``_recurrent`` and the ``_*_cell`` functions). ``RNN``, ``LSTM`` and ``GRU`` also
take a ``PackedSequence`` (``nn.utils.rnn``: a batch of sequences of different lengths) and return one.

    >>> import minitorch
    >>> lstm = minitorch.nn.LSTM(input_size=3, hidden_size=5, num_layers=2)
    >>> output, (h_n, c_n) = lstm(minitorch.zeros(7, 4, 3))   # (time, batch, features)
    >>> output.shape, h_n.shape
    (minitorch.Size([7, 4, 5]), minitorch.Size([2, 4, 5]))
"""

from __future__ import annotations

import math
import numbers
import warnings

from ... import _creation
from ..._tensor import Tensor
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence, _padded_in_sorted_order, _valid_steps
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: the parameters of every layer and direction, and the checks.

    Layer ``k`` and direction ``d`` have ``weight_ih_l{k}`` ``(gates * hidden, inputs)``,
    ``weight_hh_l{k}`` ``(gates * hidden, hidden)`` and, with ``bias``, ``bias_ih_l{k}`` and
    ``bias_hh_l{k}`` (suffix ``_reverse`` when ``d = 1``). All start as
    ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``, as in PyTorch.
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type(bias).__name__}")
        if not isinstance(batch_first, bool):
            raise TypeError(f"batch_first should be of type bool, got: {type(batch_first).__name__}")
        if not isinstance(input_size, int):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size

        self._flat_weights_names = []
        self._all_weights = []
        real_hidden_size = proj_size if proj_size > 0 else hidden_size  # the size of h (after any projection)
        for layer in range(num_layers):
            layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
            for direction in range(num_directions):
                suffix = "_reverse" if direction == 1 else ""
                shapes = {"weight_ih": (gate_size, layer_input_size), "weight_hh": (gate_size, real_hidden_size)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size > 0:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                names = []
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_creation.empty(shape, **factory_kwargs)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        """Every parameter in PyTorch's flat order (layer by layer, direction by direction)."""
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters grouped per layer and direction: ``[[w_ih, w_hh, b_ih, b_hh], ...]``."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """A no-op, kept for compatibility: PyTorch packs the weights for cuDNN here."""

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    # -- checks, in PyTorch's words ------------------------------------------------------
    def check_input(self, input: Tensor, batch_sizes=None) -> None:
        first_weight = self._flat_weights[0]
        if input.dtype != first_weight.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({first_weight.dtype}). "
                f"Convert input: input.to({first_weight.dtype}), or convert model: model.to({input.dtype})"
            )
        expected_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.size(-1)}"
            )

    def get_expected_hidden_size(self, input: Tensor, batch_sizes=None) -> tuple:
        mini_batch = int(batch_sizes[0]) if batch_sizes is not None else input.size(0 if self.batch_first else 1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple,
                          msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.size()) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def _zeros_state(self, input: Tensor, size: int) -> Tensor:
        num_directions = 2 if self.bidirectional else 1
        batch = input.size(0) if self.batch_first else input.size(1)
        return _creation.zeros(self.num_layers * num_directions, batch, size, dtype=input.dtype, device=input.device)

    def _batched(self, input: Tensor) -> tuple[Tensor, bool]:
        """Give a 2-D (unbatched) input a batch of one; say whether it had one already."""
        if input.dim() not in (2, 3):
            prefix = self.mode if self.mode in ("LSTM", "GRU") else "RNN"
            tensor_word = " tensor" if prefix == "RNN" else ""  # PyTorch's RNN says "tensor", LSTM and GRU do not
            raise ValueError(f"{prefix}: Expected input to be 2D or 3D, got {input.dim()}D{tensor_word} instead")
        if input.dim() == 3:
            return input, True
        return input.unsqueeze(0 if self.batch_first else 1), False

    def _run(self, input: Tensor, hx):
        return F._recurrent(self.mode, input, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                            self.training, self.bidirectional, self.batch_first)

    def _packed_forward(self, packed: PackedSequence, hx):
        """``forward`` on a ``PackedSequence``: the states follow the packed (longest-first) batch order, so
        ``hx`` is put in that order on the way in and ``h_n`` (and ``c_n``) back in the caller's order on the
        way out."""
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        batch_sizes_list = [int(size) for size in batch_sizes.tolist()]
        if hx is None:
            hidden_size = self.proj_size if self.proj_size > 0 else self.hidden_size
            sizes = (hidden_size, self.hidden_size) if self.mode == "LSTM" else (hidden_size,)
            layers = self.num_layers * (2 if self.bidirectional else 1)
            states = tuple(
                _creation.zeros(layers, batch_sizes_list[0], size, dtype=data.dtype, device=data.device)
                for size in sizes
            )
        else:
            states = hx if isinstance(hx, tuple) else (hx,)
            if sorted_indices is not None:
                states = tuple(state.index_select(1, sorted_indices) for state in states)
        hidden_arguments = states if self.mode == "LSTM" else states[0]
        self.check_forward_args(data, hidden_arguments, batch_sizes)
        padded, lengths = _padded_in_sorted_order(packed)
        results = F._recurrent(self.mode, padded, hidden_arguments, self._flat_weights, self.bias, self.num_layers,
                               self.dropout, self.training, self.bidirectional, False, batch_sizes_list)
        valid = _creation.tensor(_valid_steps(lengths, padded.shape[0]), device=data.device)
        output = PackedSequence(results[0][valid], batch_sizes, sorted_indices, unsorted_indices)
        final = results[1:]
        if unsorted_indices is not None:
            final = tuple(state.index_select(1, unsorted_indices) for state in final)
        return output, (final if self.mode == "LSTM" else final[0])

    def _single_state_forward(self, input: Tensor, hx: Tensor | None):
        """``forward`` of RNN and GRU: one hidden state ``h``."""
        if isinstance(input, PackedSequence):
            return self._packed_forward(input, hx)
        input, is_batched = self._batched(input)
        if hx is not None:
            if is_batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            if not is_batched:
                if hx.dim() != 2:
                    raise RuntimeError(
                        f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor"
                    )
                hx = hx.unsqueeze(1)
        else:
            hx = self._zeros_state(input, self.hidden_size)
        self.check_forward_args(input, hx)
        output, hidden = self._run(input, hx)
        if not is_batched:
            output, hidden = output.squeeze(0 if self.batch_first else 1), hidden.squeeze(1)
        return output, hidden

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (``nonlinearity="relu"`` for ReLU).

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``. ``forward(input, h0=None)``
    takes ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``) or unbatched ``(L, H_in)``
    and returns ``(output, h_n)``: the last layer's ``h_t`` for every ``t``, and every
    layer's final ``h``.
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.__dict__["nonlinearity"] = args[3]
            args = args[:3] + args[4:]
        else:
            self.__dict__["nonlinearity"] = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        return self._single_state_forward(input, hx)


class LSTM(RNNBase):
    """Long short-term memory: gates ``i, f, g, o`` and a cell state ``c`` next to ``h``.

    ``i = sigmoid(.)``, ``f = sigmoid(.)``, ``g = tanh(.)``, ``o = sigmoid(.)``, each of
    ``x_t W_i*^T + b_i* + h_{t-1} W_h*^T + b_h*``; ``c_t = f * c_{t-1} + i * g``;
    ``h_t = o * tanh(c_t)``, then ``h_t W_hr^T`` when ``proj_size > 0``.
    ``forward(input, (h0, c0)=None)`` returns ``(output, (h_n, c_n))``.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor, batch_sizes=None) -> tuple:
        mini_batch = int(batch_sizes[0]) if batch_sizes is not None else input.size(0 if self.batch_first else 1)
        num_directions = 2 if self.bidirectional else 1
        return (self.num_layers * num_directions, mini_batch, self.hidden_size)

    def check_forward_args(self, input: Tensor, hidden: tuple, batch_sizes=None) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None):
        if isinstance(input, PackedSequence):
            return self._packed_forward(input, hx)
        input, is_batched = self._batched(input)
        if hx is None:
            hx = (self._zeros_state(input, self.proj_size if self.proj_size > 0 else self.hidden_size),
                  self._zeros_state(input, self.hidden_size))
        elif is_batched:
            if hx[0].dim() != 3 or hx[1].dim() != 3:
                raise RuntimeError(
                    "For batched 3-D input, hx and cx should also be 3-D but got "
                    f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                )
        else:
            if hx[0].dim() != 2 or hx[1].dim() != 2:
                raise RuntimeError(
                    "For unbatched 2-D input, hx and cx should also be 2-D but got "
                    f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                )
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        self.check_forward_args(input, hx)
        output, hidden, cell = self._run(input, hx)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden, cell = hidden.squeeze(1), cell.squeeze(1)
        return output, (hidden, cell)


class GRU(RNNBase):
    """Gated recurrent unit: ``r = sigmoid(.)``, ``z = sigmoid(.)``,
    ``n = tanh(x_t W_in^T + b_in + r * (h_{t-1} W_hn^T + b_hn))``, ``h_t = (1 - z) * n + z * h_{t-1}``.

    ``forward(input, h0=None)`` returns ``(output, h_n)`` like ``RNN``.
    """

    def __init__(self, *args, **kwargs) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        return self._single_state_forward(input, hx)


# -- cells: one time step ------------------------------------------------------------------------
class RNNCellBase(Module):
    """What the cells share: ``weight_ih`` ``(gates * hidden, input)``, ``weight_hh``, ``bias_ih``, ``bias_hh``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None,
                 dtype=None) -> None:
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_creation.empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(_creation.empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(_creation.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(_creation.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _check_rank(self, input: Tensor, states: dict) -> bool:
        """PyTorch's rank checks; returns whether the input is batched (2-D)."""
        name = self._get_name()
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for label, state in states.items():
            if state is not None and state.dim() not in (1, 2):
                raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {state.dim()}D instead")
        return input.dim() == 2

    def _zeros(self, input: Tensor) -> Tensor:
        return _creation.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ``relu``)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        is_batched = self._check_rank(input, {"hidden": hx})
        if not is_batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if is_batched else hx.unsqueeze(0))
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        output = F._rnn_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, self.nonlinearity)
        return output if is_batched else output.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``(h', c') = cell(x, (h, c))`` with gates ``i, f, g, o`` (see ``LSTM``)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        is_batched = self._check_rank(input, {f"hx[{index}]": state for index, state in enumerate(hx or ())})
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        hidden, cell = F._lstm_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (hidden, cell) if is_batched else (hidden.squeeze(0), cell.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: ``h' = cell(x, h)`` with gates ``r, z, n`` (see ``GRU``)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        is_batched = self._check_rank(input, {"hidden": hx})
        if not is_batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if is_batched else hx.unsqueeze(0))
        output = F._gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return output if is_batched else output.squeeze(0)
