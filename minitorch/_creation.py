"""Making tensors: from data (``tensor``, ``as_tensor``, ``from_numpy``), filled
(``zeros``, ``ones``, ``full``, ``empty``, ``eye``), ranges (``arange``, ``linspace``),
and random (``rand``, ``randn``, ``randint``, ``randperm``), each with ``dtype=``,
``device=`` and ``requires_grad=`` as in PyTorch.

Data is made in host memory with NumPy and then moved to the requested device.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np

from . import _dtype, _memory_format, _messages, _sampling
from ._device import CPU, _default_device, canonical, check_available, device as Device
from ._random import generator_or_default, numpy_generator
from ._shapes import shape_argument, sizes_given
from ._tensor_base import TensorBase as Tensor  # isinstance and _make: the class sits above
from .autograd._lent_ops import lend_to_autograd


def _target_device(device):
    if device is None:
        default = _default_device["device"]  # set_default_device (usually None: the CPU)
        return CPU if default is None else canonical(default)
    if isinstance(device, int) and not isinstance(device, bool):
        device = f"cuda:{device}"
    return canonical(Device(device))


def _finish(array, dtype, device, requires_grad: bool) -> Tensor:
    """Cast, move to the device, and set ``requires_grad`` (checking it is allowed)."""
    if dtype is not None and array.dtype != dtype.numpy_dtype:
        array = array.astype(dtype.numpy_dtype)
    target = _target_device(device)
    if target is not CPU:
        check_available(target)
        array = target.backend.to_device(array, target.index)
    return _requiring_grad(Tensor._make(array, target), requires_grad)


def _requiring_grad(result: Tensor, requires_grad: bool) -> Tensor:
    """``result`` with ``requires_grad`` set, if asked (only floating point tensors may ask)."""
    if requires_grad:
        if not _dtype.is_floating(result._data.dtype):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        result._requires_grad = True
    return result


def _infer_array(data, dtype=None):
    """A NumPy array from Python data, with PyTorch's dtype inference (Python floats -> default dtype).

    With ``dtype`` given, Python floats stay float64 here, so ``tensor([1.1], dtype=float64)``
    is not rounded through float32 on its way.
    """
    if isinstance(data, Tensor):
        return data._device.backend.to_host(data._data)
    if isinstance(data, (np.ndarray, np.generic)):  # NumPy arrays and scalars keep their dtype, as in PyTorch
        return np.asarray(data)
    if isinstance(data, (list, tuple)) and any(isinstance(item, Tensor) for item in _flatten(data)):
        if dtype is None:  # the tensors' dtypes count, promoted with the numbers' (a bfloat16 list stays bfloat16)
            return _infer_array(_replace_tensors(data), _dtype.float64).astype(_elements_dtype(data).numpy_dtype)
        data = _replace_tensors(data)
    try:
        array = np.array(data)
    except ValueError:  # ragged nested lists: say where, in PyTorch's words
        raise ValueError(_ragged_message(data) or "expected nested sequences of equal lengths") from None
    if _dtype.is_floating(array.dtype):
        return array if dtype is not None else array.astype(_dtype.get_default_dtype().numpy_dtype)
    if array.dtype.kind in "iu" and array.dtype != np.int64 and not isinstance(data, np.generic):
        return array.astype(np.int64)
    if array.dtype.kind not in "biuf":
        kind = "str" if array.dtype.kind in "US" else type(data).__name__
        raise TypeError(f"new(): invalid data type '{kind}'")
    return array


def _ragged_message(data, dim: int = 0) -> str:
    """PyTorch's message for nested lists whose lengths differ: ``expected sequence of length 2 at dim 1 (got 1)``."""
    items = [item for item in data if isinstance(item, (list, tuple))]
    if items:
        expected = len(items[0])
        for item in items:
            if len(item) != expected:
                return f"expected sequence of length {expected} at dim {dim + 1} (got {len(item)})"
        for item in items:
            message = _ragged_message(item, dim + 1)
            if message:
                return message
    return ""


def _flatten(data):
    for item in data:
        if isinstance(item, (list, tuple)):
            yield from _flatten(item)
        else:
            yield item


def _elements_dtype(data) -> _dtype.dtype:
    """PyTorch's dtype for a list holding tensors: every element's dtype (a number's as it would be alone)
    promoted together: ``[bfloat16 tensor, bfloat16 tensor]`` is bfloat16, ``[bfloat16 tensor, 2.5]`` float32."""
    return functools.reduce(_dtype.promote_types, (
        item.dtype if isinstance(item, Tensor) else _dtype.dtype_of_python_scalar(item) for item in _flatten(data)))


def _replace_tensors(data):
    if isinstance(data, Tensor):
        return data.item() if data.numel() == 1 and data.dim() == 0 else data.tolist()
    if isinstance(data, (list, tuple)):
        return [_replace_tensors(item) for item in data]
    return data


@lend_to_autograd
def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (a number, nested lists, a NumPy array or a tensor)."""
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
            "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
            UserWarning,
            stacklevel=2,
        )
    array = _infer_array(data, dtype)
    array = np.array(array, copy=True)
    if dtype is None and isinstance(data, Tensor):
        dtype = data.dtype
    if device is None and isinstance(data, Tensor):
        device = data.device
    result = _finish(array, dtype, device, requires_grad)
    return result.detach().pin_memory().requires_grad_(requires_grad) if pin_memory else result


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """``data`` as a tensor, sharing memory when it already is one (or a NumPy array) of the right kind."""
    if isinstance(data, Tensor):
        return data.to(device=device if device is not None else data.device, dtype=dtype)
    on_cpu = device in ("cpu", CPU) or device is None and _default_device["device"] is None
    if isinstance(data, np.ndarray) and on_cpu:
        if dtype is None or data.dtype == dtype.numpy_dtype:
            return from_numpy(data)
    return _finish(_infer_array(data, dtype), dtype, device, False)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False) -> Tensor:
    result = tensor(obj, dtype=dtype, device=device) if copy else as_tensor(obj, dtype=dtype, device=device)
    if requires_grad:
        result.requires_grad_(True)
    return result


def _made_on(device, build, requires_grad: bool) -> Tensor:
    """``build(xp)`` with the target device's array module (NumPy, or CuPy with the GPU made current): a
    constant is made where it lives, instead of on the host and then copied over."""
    target = _target_device(device)
    if target is CPU:
        return _finish(build(np), None, CPU, requires_grad)
    check_available(target)
    with target.backend.use_device(target.index):
        array = build(target.backend.array_module)
    return _requiring_grad(Tensor._make(array, target), requires_grad)


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A CPU tensor that shares ``ndarray``'s memory: writing one changes the other."""
    array = ndarray
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)  # raises PyTorch's message for unsupported dtypes
    return Tensor._make(array, CPU)


def _shape_and_default(sizes, dtype, size=None, function: str = "zeros"):
    """The shape from ``f(2, 3)``, ``f((2, 3))`` or PyTorch's keyword ``f(size=(2, 3))``; the dtype or the default."""
    return shape_argument(sizes_given(sizes, size, "size", function)), (dtype or _dtype.get_default_dtype())


@lend_to_autograd
def zeros(*sizes, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape, dtype = _shape_and_default(sizes, dtype, size, "zeros")
    return _made_on(device, lambda xp: xp.zeros(shape, dtype=dtype.numpy_dtype), requires_grad)


def ones(*sizes, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    shape, dtype = _shape_and_default(sizes, dtype, size, "ones")
    return _made_on(device, lambda xp: xp.ones(shape, dtype=dtype.numpy_dtype), requires_grad)


def empty(*sizes, size=None, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    shape, dtype = _shape_and_default(sizes, dtype, size, "empty")
    result = _made_on(device, lambda xp: xp.empty(shape, dtype=dtype.numpy_dtype), requires_grad)
    return _in_memory_format(result, memory_format)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` whose elements sit ``stride`` elements apart in its storage.

    The storage holds just enough elements for the farthest one (``1 + sum((size - 1) * stride)``),
    as PyTorch allocates it; the tensor is a strided view of it, so ``stride()`` reports ``stride``.
    """
    shape, dtype = _shape_and_default((size,), dtype, None, "empty_strided")
    stride = tuple(int(step) for step in stride)
    if len(stride) != len(shape):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(step < 0 for step in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                           f"{list(stride)}")
    itemsize = dtype.numpy_dtype.itemsize
    count = 0 if 0 in shape else 1 + sum((length - 1) * step for length, step in zip(shape, stride))
    storage = np.zeros(count, dtype=dtype.numpy_dtype)
    array = np.lib.stride_tricks.as_strided(storage, shape, tuple(step * itemsize for step in stride))
    return _finish(array, None, device, requires_grad)


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D tensor over the bytes of an object that offers the buffer protocol (``array.array``, ``bytearray``).

    The tensor shares the memory: writing to one changes the other, as in PyTorch. ``count`` elements
    are read (all that fit when -1), starting ``offset`` bytes in.
    """
    length = memoryview(buffer).nbytes
    itemsize = dtype.numpy_dtype.itemsize
    if offset < 0 or offset >= length:
        raise ValueError(f"both buffer length ({length}) and offset ({offset}) must be greater than 0 and offset "
                         "must be less than buffer length" if length <= 0 else
                         f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({length} bytes) minus 1")
    if count <= 0 and (length - offset) % itemsize != 0:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple "
                         f"of element size ({itemsize})")
    array = np.frombuffer(buffer, dtype=dtype.numpy_dtype, count=count, offset=offset)
    return _finish(array, None, None, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value``; its dtype follows the value (bool, int64 or float)."""
    if dtype is None:
        dtype = _dtype.dtype_of_python_scalar(fill_value)
    shape = shape_argument((size,))
    return _made_on(device, lambda xp: xp.full(shape, fill_value, dtype=dtype.numpy_dtype), requires_grad)


def _like(template: Tensor, dtype, device):
    return template.shape, (dtype or template.dtype), (device if device is not None else template.device)


def _in_memory_format(result: Tensor, memory_format, template: Tensor | None = None) -> Tensor:
    """``result`` laid out in memory as ``memory_format`` says (``_memory_format.py``). For a ``*_like``
    function the default, ``preserve_format``, keeps the template's order, as PyTorch's ``empty_like`` does:
    a dense template's own strides (channels-last, transposed...), else its axes ordered by their strides
    (``_memory_format.dense_order``; a broadcast axis keeps row-major order)."""
    if memory_format in (None, _memory_format.preserve_format) and template is not None:
        if template._data.flags.c_contiguous or result._device.type == "meta":  # (a meta tensor has no memory)
            return result
        memory_format = _memory_format.dense_order(template.shape, template.stride())
    if memory_format in (None, _memory_format.contiguous_format, _memory_format.preserve_format):
        return result
    result._data = _memory_format.laid_out(result._data, memory_format)
    return result


@lend_to_autograd
def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    result = zeros(shape, dtype=dtype, device=device, requires_grad=requires_grad)
    return _in_memory_format(result, memory_format, input)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    result = ones(shape, dtype=dtype, device=device, requires_grad=requires_grad)
    return _in_memory_format(result, memory_format, input)


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    result = empty(shape, dtype=dtype, device=device, requires_grad=requires_grad)
    return _in_memory_format(result, memory_format, input)


def full_like(
    input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None
) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    result = full(shape, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)
    return _in_memory_format(result, memory_format, input)


def _drawn_in_memory_order(draw, template: Tensor, shape) -> Tensor:
    """``draw(shape)`` laid out as ``template`` (``preserve_format``), its numbers drawn in memory order, as
    PyTorch fills the memory of ``rand_like(template)`` one element after the next."""
    if template._data.flags.c_contiguous or template._device.type == "meta":
        return draw(shape)
    order = _memory_format.dense_order(template.shape, template.stride())
    result = draw(tuple(shape[axis] for axis in order))
    result._data = result._data.transpose(sorted(range(len(order)), key=order.__getitem__))
    return result


def rand_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    return _drawn_in_memory_order(
        lambda size: rand(size, dtype=dtype, device=device, requires_grad=requires_grad, generator=generator),
        input, shape)


@lend_to_autograd
def randn_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, generator=None) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    return _drawn_in_memory_order(
        lambda size: randn(size, dtype=dtype, device=device, requires_grad=requires_grad, generator=generator),
        input, shape)


def randint_like(input: Tensor, low: int = 0, high: int | None = None, *, dtype=None, device=None,
                 requires_grad: bool = False, generator=None) -> Tensor:
    if high is None:
        low, high = 0, low
    shape, dtype, device = _like(input, dtype, device)
    return randint(low, high, shape, dtype=dtype, device=device, generator=generator)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``[start, start + step, ...)`` up to but excluding ``end``; integer arguments give int64."""
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if values[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (values[1] - values[0]) / values[2] < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        integral = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values)
        dtype = _dtype.int64 if integral else _dtype.get_default_dtype()
    count = max(math.ceil((values[1] - values[0]) / values[2]), 0)
    array = values[0] + np.arange(count, dtype=np.float64 if dtype.is_floating_point else np.int64) * values[2]
    return _finish(array, dtype, device, requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype in (_dtype.float16, _dtype.bfloat16) and steps > 1:
        return _finish(_linspace_in(dtype.numpy_dtype, start, end, int(steps)), dtype, device, requires_grad)
    array = np.linspace(float(start), float(end), int(steps), dtype=np.float64)
    return _finish(array, dtype or _dtype.get_default_dtype(), device, requires_grad)


def _linspace_in(numpy_dtype, start, end, steps: int) -> np.ndarray:
    """PyTorch's kernel for a 16-bit float, every step rounded to it: ``step = (end - start) / (steps - 1)``, the
    first half ``start + step * i``, the second ``end - step * (steps - 1 - i)`` (so both ends are exact)."""
    first, last = np.array(start, dtype=numpy_dtype), np.array(end, dtype=numpy_dtype)
    step = (last - first) / np.array(steps - 1, dtype=numpy_dtype)
    positions = np.arange(steps)
    half = steps // 2
    return np.concatenate([first + step * positions[:half].astype(numpy_dtype),
                           last - step * (steps - 1 - positions[half:]).astype(numpy_dtype)])


def logspace(
    start, end, steps: int, base: float = 10.0, *, dtype=None, device=None, requires_grad: bool = False
) -> Tensor:
    array = np.logspace(float(start), float(end), int(steps), base=base, dtype=np.float64)
    return _finish(array, dtype or _dtype.get_default_dtype(), device, requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """The ``n`` x ``m`` identity matrix."""
    dtype = dtype or _dtype.get_default_dtype()
    return _finish(np.eye(n, m if m is not None else n, dtype=dtype.numpy_dtype), None, device, requires_grad)


def rand(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Uniform samples from ``[0, 1)`` (PyTorch's numbers for the same seed: ``_sampling.uniform``)."""
    shape, dtype = _shape_and_default(sizes, dtype, size, "rand")
    _check_floating("check_uniform_bounds", dtype)
    array = _sampling.uniform(generator_or_default(generator), shape, dtype.numpy_dtype)
    return _finish(array, dtype, device, requires_grad)


def randn(*sizes, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Samples from the standard normal distribution (PyTorch's numbers: ``_sampling.normal``)."""
    shape, dtype = _shape_and_default(sizes, dtype, size, "randn")
    _check_floating("normal_kernel_cpu", dtype)
    array = _sampling.normal(generator_or_default(generator), shape, dtype.numpy_dtype)
    return _finish(array, dtype, device, requires_grad)


_RANDINT_OPTIONS = ("*, torch.Generator generator, Tensor out = None, torch.dtype dtype = None, torch.layout layout = "
                    "None, torch.device device = None, bool pin_memory = False, bool requires_grad = False")
_RANDINT_MISUSED = "".join(
    ["randint() received an invalid combination of arguments - got ({}), but expected one of:\n"]
    + [f" * ({head}, {options})\n" for head in ("int high, tuple of ints size", "int low, int high, tuple of ints size")
       for options in (_RANDINT_OPTIONS, _RANDINT_OPTIONS.replace("torch.Generator generator, ", ""))])


def randint(*args, low=None, high=None, size=None, generator=None, dtype=None, device=None,
            requires_grad: bool = False) -> Tensor:
    """Integers from ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)`` (or by keyword)."""
    given = args
    args = ([] if low is None else [low]) + list(args) + ([] if high is None else [high])
    if size is None and args:
        size = args.pop()
    if len(args) not in (1, 2) or size is None:  # neither (high, size) nor (low, high, size): PyTorch's parser's words
        raise TypeError(_RANDINT_MISUSED.format(", ".join(_messages.type_name(value) for value in given)))
    low, high = (0, args[0]) if len(args) == 1 else (args[0], args[1])
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    dtype = dtype or _dtype.int64
    array = _sampling.random_from_to(generator_or_default(generator), shape_argument((size,)), dtype.numpy_dtype,
                                     int(low), int(high))
    return _finish(array, dtype, device, requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A random permutation of ``0 .. n-1`` (PyTorch's Fisher-Yates order: ``_sampling.randperm``)."""
    if int(n) < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {int(n)}: [{int(n)}]")
    array = _sampling.randperm(generator_or_default(generator), int(n))
    return _finish(array, dtype or _dtype.int64, device, requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """Samples from ``N(mean, std^2)``: tensor ``mean``/``std`` broadcast, or floats with ``size``.

    ``std`` defaults to 1 (PyTorch's ``normal(mean, std=1.0)``) when ``mean`` is a tensor.

    With tensors PyTorch draws standard normals (or ``N(0, std)`` for a float ``std``), then
    multiplies by ``std`` and adds ``mean`` in the result's dtype; the same steps here.
    """
    generator = generator_or_default(generator)
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        template = mean if isinstance(mean, Tensor) else std
        mean_array = template._device.backend.to_host(mean._data) if isinstance(mean, Tensor) else mean
        std_array = template._device.backend.to_host(std._data) if isinstance(std, Tensor) else std
        if isinstance(std, Tensor) and np.any(std_array < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        shape = np.broadcast_shapes(np.shape(mean_array), np.shape(std_array))
        result_dtype = template._data.dtype
        if isinstance(std, Tensor):
            array = _sampling.normal(generator, shape, result_dtype) * np.asarray(std_array, result_dtype)
        else:
            array = _sampling.normal(generator, shape, result_dtype, 0.0, std)
        array = (array + np.asarray(mean_array, result_dtype)).astype(result_dtype)
        return _finish(array, template.dtype, template.device, requires_grad)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    shape, dtype = _shape_and_default((size,), dtype)
    array = _sampling.normal(generator, shape, dtype.numpy_dtype, mean, std)
    return _finish(array, dtype, device, requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    """0/1 samples, each 1 with the probability given by ``input`` (or ``p``)."""
    generator = generator_or_default(generator)
    dtype = input.dtype.numpy_dtype
    if p is None:
        probabilities = input._device.backend.to_host(input._data)
        array = _sampling.bernoulli_tensor(generator, np.ascontiguousarray(probabilities), dtype)
    else:
        array = _sampling.bernoulli_scalar(generator, tuple(input.shape), dtype, p)
    return _finish(array, None, input.device, False)


def poisson(input: Tensor, generator=None) -> Tensor:
    """Counts ``k ~ Poisson(rate)``, one per rate in ``input`` (``P(k) = rate^k e^(-rate) / k!``).

    Not PyTorch's numbers (``_random.py`` lists the draws that differ): PyTorch draws each count by
    rejection, element after element, taking a varying number of words from the twister for each,
    which no vectorised transform repeats. minitorch uses NumPy's Poisson sampler on the same twister,
    so ``manual_seed`` still repeats a run.
    """
    rates = input._device.backend.to_host(input._data)
    if not _dtype.is_floating(rates.dtype):
        raise NotImplementedError(_messages.not_implemented_for("poisson_cpu", input.dtype))
    if not np.all(rates >= 0):  # NaN fails too, as in PyTorch
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    counts = numpy_generator(generator).poisson(rates.astype(np.float64))
    return _finish(counts.astype(rates.dtype), None, input.device, False)


def binomial(count: Tensor, prob: Tensor, generator=None) -> Tensor:
    """Successes ``k ~ Binomial(count, prob)`` in ``count`` trials, element by element (broadcast).

    Not PyTorch's numbers, for the reason ``poisson`` gives (PyTorch's sampler rejects element after element).
    """
    counts, probabilities = (t._device.backend.to_host(t._data) for t in (count, prob))
    for name, array, tensor_ in (("count", counts, count), ("prob", probabilities, prob)):
        if not _dtype.is_floating(array.dtype):
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: {tensor_.dtype.type_name}")
    successes = numpy_generator(generator).binomial(counts.astype(np.int64), np.clip(probabilities, 0.0, 1.0))
    return _finish(successes.astype(counts.dtype), None, count.device, False)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Indices drawn with probabilities proportional to each row of ``input`` (PyTorch's algorithm per case)."""
    weights = input._device.backend.to_host(input._data)
    if not _dtype.is_floating(weights.dtype):
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {input.dtype}")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    rows = weights.reshape(-1, weights.shape[-1])
    if not replacement and num_samples > rows.shape[1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not np.all(np.isfinite(rows)) or np.any(rows < 0):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(rows.sum(axis=1) == 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    samples = _sampling.multinomial(generator_or_default(generator), rows, int(num_samples), replacement)
    return _finish(samples.reshape(weights.shape[:-1] + (int(num_samples),)), None, input.device, False)


def _check_floating(kernel: str, dtype) -> None:
    """PyTorch's error for a random floating-point kernel asked for an integer dtype (it names the kernel)."""
    if not dtype.is_floating_point:
        raise NotImplementedError(_messages.not_implemented_for(kernel, dtype))


