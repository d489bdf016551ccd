"""PyTorch's CPU sampling kernels, as NumPy array recipes over the generator's raw words.

Each function here takes a ``Generator`` (``_random.py``) and returns a NumPy array with
the numbers PyTorch's CPU kernels write, bit for bit. The recipes (from ATen's
``TransformationHelper.h``, ``DistributionsHelper.h`` and ``cpu/DistributionTemplates.h``):

* uniform on ``[from, to)``: float32 keeps the low 24 bits of one 32-bit word, float64 the low
  53 bits of a 64-bit value made of two words (the first word is the high half):
  ``x = bits * 2^-digits``, then ``x * (to - from) + from`` in one fused multiply-add.
* integers on ``[low, high)``: ``word % (high - low) + low``, with one 32-bit word, or a 64-bit
  value when the range reaches ``2^32``.
* normal, fewer than 16 values (or a non-contiguous tensor): Box-Muller in double precision,
  ``sqrt(-2 log(1 - u2)) * cos(2 pi u1)``; the ``sin`` partner is cached in the generator
  and returned by the next scalar normal draw.
* normal, 16 values or more: first one uniform per value, then Box-Muller on blocks of 16
  (the first 8 uniforms with the last 8); a size that is not a multiple of 16 draws 16 new
  uniforms for the last 16 values and recomputes them. For float32 PyTorch's x86 build uses
  an 8-wide AVX2 kernel whose ``log``/``sincos`` are Cephes polynomials (``avx_mathfun.h``);
  they are evaluated here step by step in float32, with the multiply-adds fused as the compiler
  fuses them.
* exponential: ``-1 / lambda * log1p(-u)`` in double; bernoulli with a tensor of
  probabilities: ``u < p``; randperm: Fisher-Yates with ``word % (n - i)``.
* cauchy: ``median + sigma * tan(pi * (u - 0.5))``; log-normal: ``exp`` of the scalar normal draw;
  geometric: ``ceil(log(u) / log1p(-p))``; each with one float64 ``u`` per value, in double, with
  the C library's ``tan``/``exp``/``log``.

What is not bit for bit (tests/test_random_parity.py checks the rest against PyTorch 2.13):

* PyTorch builds that draw ``bernoulli_(p)`` with a float ``p`` (so dropout) or ``exponential_``
  through MKL's VSL streams (older releases on Intel CPUs, and the proposed ``MKLGenerator``):
  MKL's streams cannot be reproduced here. PyTorch 2.13's CPU build takes the portable kernels
  for both, which are the ones written here (and they match it).
* float32 normals on CPUs without AVX2 (PyTorch then uses the C library's ``logf``/``sinf``/
  ``cosf`` instead of the Cephes polynomials) and on non-x86 builds; float16 normals (computed
  here in float32 and rounded).
* ``nn.init.orthogonal_``: the normals are PyTorch's, the QR decomposition is LAPACK's (NumPy's
  OpenBLAS against PyTorch's MKL): equal to float32 rounding, not bit for bit.
"""

from __future__ import annotations

import math

import numpy as np

_TWO_PI = 2.0 * math.pi


def _c_log(x: np.ndarray) -> np.ndarray:
    """The C library's ``log`` element by element (Python's ``math.log`` calls it).

    PyTorch's kernels call the C library; NumPy's own vectorised ``log`` differs from it in the
    last bit for about 1 value in 300, so float64 logs are taken here one by one.
    """
    return np.fromiter(map(math.log, np.asarray(x, np.float64).reshape(-1).tolist()), np.float64,
                       count=np.size(x)).reshape(np.shape(x))


def _c_elementwise(function, x: np.ndarray) -> np.ndarray:
    """The C library's ``function`` (``math.tan``, ``math.exp``...) element by element (see ``_c_log``)."""
    return np.fromiter(map(function, np.asarray(x, np.float64).reshape(-1).tolist()), np.float64,
                       count=np.size(x)).reshape(np.shape(x))


def _c_log1p(x: np.ndarray) -> np.ndarray:
    """The C library's ``log1p`` element by element (see ``_c_log``)."""
    return np.fromiter(map(math.log1p, np.asarray(x, np.float64).reshape(-1).tolist()), np.float64,
                       count=np.size(x)).reshape(np.shape(x))


# -- exact fused multiply-add (PyTorch's kernels are compiled with contraction on) -----------
def _fma32(a, b, c) -> np.ndarray:
    """``round32(a * b + c)`` with one rounding, as the CPU's ``vfmadd`` gives it.

    In float64 the product of two float32 values is exact; the sum is rounded to odd
    (so the second rounding, to float32, cannot round twice in the same direction).
    """
    if np.ndim(c) == 0 and c == 0:  # nothing to add: the product alone, rounded once
        return (np.asarray(a, np.float64) * np.asarray(b, np.float64)).astype(np.float32)
    product = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    addend = np.asarray(c, np.float64)
    total = product + addend
    # TwoSum: the rounding error of the float64 sum, exactly
    virtual = total - product
    error = (product - (total - virtual)) + (addend - virtual)
    inexact_even = (error != 0) & ((total.view(np.int64) & 1) == 0)
    total = np.where(inexact_even, np.nextafter(total, np.where(error > 0, np.inf, -np.inf)), total)
    return total.astype(np.float32)


_SPLIT = 134217729.0  # 2^27 + 1: Veltkamp's constant, splits a float64 into two 26-bit halves


def _fma64(a, b, c) -> np.ndarray:
    """``round64(a * b + c)`` with one rounding, from error-free products and sums (Dekker, Knuth)."""
    a, b, c = (np.asarray(v, np.float64) for v in (a, b, c))
    product = a * b
    a_big = _SPLIT * a
    a_high = a_big - (a_big - a)
    a_low = a - a_high
    b_big = _SPLIT * b
    b_high = b_big - (b_big - b)
    b_low = b - b_high
    product_error = ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low
    total = product + c
    virtual = total - product
    sum_error = (product - (total - virtual)) + (c - virtual)
    return total + (sum_error + product_error)


# -- uniform -----------------------------------------------------------------------------------
def _unit_float32(generator, count: int) -> np.ndarray:
    """``count`` float32 values ``k / 2^24`` from the low 24 bits of one word each."""
    return (generator.random32(count) & np.uint64(0xFFFFFF)).astype(np.float32) * np.float32(2.0**-24)


def _unit_float64(generator, count: int) -> np.ndarray:
    """``count`` float64 values ``k / 2^53`` from the low 53 bits of a 64-bit value each."""
    return (generator.random64(count) & np.uint64(2**53 - 1)).astype(np.float64) * 2.0**-53


def _unit_float16(generator, count: int) -> np.ndarray:
    """``count`` values ``k / 2^11`` (half precision's 11 digits) as float32, PyTorch's accumulation type."""
    return (generator.random32(count) & np.uint64(0x7FF)).astype(np.float32) * np.float32(2.0**-11)


def uniform(generator, shape, dtype, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """``U[low, high)`` in ``dtype`` (float16/32/64): PyTorch's ``uniform_``."""
    count = math.prod(shape)
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        low, high = np.float64(low), np.float64(high)
        values = _fma64(_unit_float64(generator, count), high - low, low)
    elif dtype == np.float32:
        low, high = np.float32(low), np.float32(high)
        values = _fma32(_unit_float32(generator, count), high - low, low)
    elif dtype.name == "bfloat16":  # (ml_dtypes' type) float32's uniforms, rounded; one rounded up to high
        # would leave [low, high), and PyTorch gives low instead
        rounded = _fma32(_unit_float32(generator, count), np.float32(high) - np.float32(low), np.float32(low))
        rounded = rounded.astype(dtype)
        values = np.where(rounded == np.float32(high).astype(dtype), np.float32(low).astype(dtype), rounded)
    elif dtype == np.float16:
        low, high = np.float16(low), np.float16(high)
        span = np.float16(np.float32(high) - np.float32(low))
        values = _fma32(_unit_float16(generator, count), np.float32(span), np.float32(low))
    else:
        raise TypeError(f"uniform_ draws floating point values, not {dtype}")
    return values.astype(dtype).reshape(shape)


def rrelu_slopes(generator, count: int, dtype, lower: float, upper: float) -> np.ndarray:
    """RReLU's random slopes, one per entry ``<= 0``: PyTorch's kernel rounds ``lower``/``upper`` to the input's
    precision, draws a float64 uniform and computes ``u * (upper - lower) + lower`` without fusing (that kernel
    is compiled without FMA), then rounds the slope to the input's dtype."""
    precision = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    low, high = float(precision(lower)), float(precision(upper))
    return (_unit_float64(generator, count) * (high - low) + low).astype(dtype)


# -- integers ----------------------------------------------------------------------------------
def random_from_to(generator, shape, dtype, low: int, high: int) -> np.ndarray:
    """Integers in ``[low, high)``: ``word % (high - low) + low`` (PyTorch's ``random_(from, to)``/``randint``).

    A range of ``2^32`` or more takes a 64-bit value per element (for int64, float, double);
    smaller ranges one 32-bit word.
    """
    count = math.prod(shape)
    span = int(high) - int(low)
    dtype = np.dtype(dtype)
    wide = span >= 2**32 and dtype in (np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.float32))
    if count == 1 and span < 2**63:  # one value (a transform's crop position): plain Python integers are quicker
        word = int(generator.random64(1)[0] if wide else generator.random32(1)[0])
        return np.full(shape, word % span + int(low), dtype=np.int64).astype(dtype)
    words = generator.random64(count) if wide else generator.random32(count)
    offsets = words % np.uint64(span)
    values = (offsets.astype(np.int64) + np.int64(low)) if span < 2**63 else (offsets + np.uint64(low % 2**64))
    return values.astype(np.int64).astype(dtype).reshape(shape)


def random_full_range(generator, shape, dtype) -> np.ndarray:
    """``random_()`` without bounds: ``[0, 2^digits]`` for floating dtypes, ``[0, max]`` for integers."""
    count = math.prod(shape)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (generator.random32(count) & np.uint64(1)).astype(np.bool_).reshape(shape)
    if dtype in (np.dtype(np.float64), np.dtype(np.int64)):
        words = generator.random64(count)
    else:
        words = generator.random32(count)
    if dtype.kind == "f" or dtype.name == "bfloat16":  # (ml_dtypes' bfloat16 is of NumPy kind "V")
        modulus = 2 ** np.finfo(dtype).nmant * 2 + 1  # 2^digits + 1: the values 0 .. 2^digits
    else:
        modulus = int(np.iinfo(dtype).max) + 1
    return (words % np.uint64(modulus)).astype(dtype).reshape(shape)


# -- normal ------------------------------------------------------------------------------------
def normal(generator, shape, dtype, mean: float = 0.0, std: float = 1.0, contiguous: bool = True) -> np.ndarray:
    """``N(mean, std^2)`` in ``dtype``: PyTorch's ``normal_`` (vectorised from 16 values on, scalar below)."""
    count = math.prod(shape)
    dtype = np.dtype(dtype)
    if count >= 16 and contiguous:
        if dtype == np.float32:
            values = _normal_fill_float32(generator, count, np.float32(mean), np.float32(std))
        elif dtype.name == "bfloat16":  # (ml_dtypes' type) float32 normals of whole blocks of 16, rounded
            values = _normal_fill_bfloat16(generator, count, np.float32(mean), np.float32(std))
        else:
            values = _normal_fill_float64(generator, count, np.float64(mean), np.float64(std))
    else:
        values = _normal_scalar(generator, count, float(mean), float(std))
    return values.astype(dtype).reshape(shape)


def _normal_scalar(generator, count: int, mean: float, std: float) -> np.ndarray:
    """``count`` draws of PyTorch's scalar ``normal_distribution<double>`` (Box-Muller, one sample cached)."""
    standard = np.empty(count, dtype=np.float64)
    start = 0
    if count and generator.next_double_normal is not None:
        standard[0] = generator.next_double_normal
        generator.next_double_normal = None
        start = 1
    pairs = (count - start + 1) // 2
    if pairs:
        unit = _unit_float64(generator, 2 * pairs)
        u1, u2 = unit[0::2], unit[1::2]
        radius = np.sqrt(-2.0 * _c_log1p(-u2))
        theta = _TWO_PI * u1
        both = np.empty(2 * pairs, dtype=np.float64)
        both[0::2] = radius * np.cos(theta)
        both[1::2] = radius * np.sin(theta)
        standard[start:] = both[: count - start]
        if (count - start) % 2:  # the last sine waits for the next draw
            generator.next_double_normal = float(both[-1])
    return _fma64(standard, std, mean)


def _blocks_of_16(generator, count: int, unit_draw, transform) -> np.ndarray:
    """PyTorch's ``normal_fill``: uniforms for all, Box-Muller per block of 16, the ragged tail redrawn."""
    data = unit_draw(generator, count)
    full = count // 16 * 16
    out = np.empty(count, dtype=data.dtype)
    out[:full] = transform(data[:full].reshape(-1, 16)).reshape(-1)
    if count % 16:
        tail = unit_draw(generator, 16)
        out[count - 16:] = transform(tail.reshape(1, 16)).reshape(-1)
    return out


def _normal_fill_float64(generator, count: int, mean, std) -> np.ndarray:
    def transform(block):
        u1 = 1.0 - block[:, :8]
        u2 = block[:, 8:]
        radius = np.sqrt(-2.0 * _c_log(u1))
        theta = _TWO_PI * u2
        return np.concatenate([_fma64(radius * np.cos(theta), std, mean),
                               _fma64(radius * np.sin(theta), std, mean)], axis=1)

    return _blocks_of_16(generator, count, _unit_float64, transform)


def _normal_fill_float32(generator, count: int, mean, std) -> np.ndarray:
    two_pi = np.float32(_TWO_PI)

    def transform(block):
        u1 = np.float32(1.0) - block[:, :8]
        u2 = block[:, 8:]
        radius = np.sqrt(np.float32(-2.0) * _log_cephes(u1))
        sine, cosine = _sincos_cephes(two_pi * u2)
        return np.concatenate([_fma32(radius * cosine, std, mean), _fma32(radius * sine, std, mean)], axis=1)

    return _blocks_of_16(generator, count, _unit_float32, transform)


def _normal_fill_bfloat16(generator, count: int, mean, std) -> np.ndarray:
    """PyTorch's bfloat16 ``normal_``: float32 normals from uniforms drawn for whole blocks of 16 at once (no
    redrawn tail), the last block moved to the end, then rounded (checked against PyTorch 2.13)."""
    padded = -(-count // 16) * 16
    normals = _normal_fill_float32(generator, padded, mean, std)
    return np.concatenate([normals[: count - 16], normals[padded - 16:]])


# Cephes single-precision polynomials, as in PyTorch's avx_mathfun.h
_LOG_P = [7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
          -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1]
_LOG_Q1, _LOG_Q2 = np.float32(-2.12194440e-4), np.float32(0.693359375)
_SQRTHF = np.float32(0.707106781186547524)
_DP1, _DP2, _DP3 = np.float32(-0.78515625), np.float32(-2.4187564849853515625e-4), np.float32(-3.77489497744594108e-8)
_SINCOF = [np.float32(-1.9515295891e-4), np.float32(8.3321608736e-3), np.float32(-1.6666654611e-1)]
_COSCOF = [np.float32(2.443315711809948e-005), np.float32(-1.388731625493765e-003), np.float32(4.166664568298827e-002)]
_FOPI = np.float32(1.27323954473516)  # 4 / pi


def _log_cephes(x: np.ndarray) -> np.ndarray:
    """Natural log of positive float32 values: exponent and mantissa split, a degree-9 polynomial."""
    x = np.maximum(x, np.float32(np.finfo(np.float32).tiny))
    exponent = (x.view(np.int32) >> 23) - 0x7F
    mantissa = ((x.view(np.int32) & ~0x7F800000) | np.float32(0.5).view(np.int32)).view(np.float32)  # in [0.5, 1)
    e = exponent.astype(np.float32) + np.float32(1.0)
    small = mantissa < _SQRTHF
    x = (mantissa - np.float32(1.0)) + np.where(small, mantissa, np.float32(0.0))
    e = e - np.where(small, np.float32(1.0), np.float32(0.0))
    z = x * x
    y = np.full_like(x, _LOG_P[0])
    for coefficient in _LOG_P[1:]:
        y = _fma32(y, x, np.float32(coefficient))
    y = _fma32(y * x, z, e * _LOG_Q1)  # the compiler fuses this product, not e * q1
    y = y - z * np.float32(0.5)
    return (x + y) + e * _LOG_Q2


def _sincos_cephes(x: np.ndarray):
    """Sine and cosine of float32 values: reduce by multiples of pi/4, then one of two polynomials."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    octant = (np.trunc(x * _FOPI).astype(np.int32) + 1) & ~1
    y = octant.astype(np.float32)
    swap_sin = (octant & 4) != 0
    use_sine_poly = (octant & 2) != 0
    x = _fma32(y, _DP1, x)
    x = _fma32(y, _DP2, x)
    x = _fma32(y, _DP3, x)
    sign_cos = ((~(octant - 2)) & 4) != 0
    sign_sin = sign_sin ^ swap_sin
    z = x * x
    cos_poly = _fma32(np.full_like(z, _COSCOF[0]), z, _COSCOF[1])
    cos_poly = _fma32(cos_poly, z, _COSCOF[2])
    cos_poly = cos_poly * z
    cos_poly = _fma32(cos_poly, z, -(z * np.float32(0.5)))
    cos_poly = cos_poly + np.float32(1.0)
    sin_poly = _fma32(np.full_like(z, _SINCOF[0]), z, _SINCOF[1])
    sin_poly = _fma32(sin_poly, z, _SINCOF[2])
    sin_poly = sin_poly * z
    sin_poly = _fma32(sin_poly, x, x)
    sine = np.where(use_sine_poly, cos_poly, sin_poly)
    cosine = np.where(use_sine_poly, sin_poly, cos_poly)
    return np.where(sign_sin, -sine, sine), np.where(sign_cos, -cosine, cosine)


# -- other distributions -----------------------------------------------------------------------
def exponential(generator, shape, dtype, rate: float = 1.0) -> np.ndarray:
    """``Exp(rate)``: ``-1 / rate * log1p(-u)`` in double (PyTorch's CPU ``exponential_``)."""
    unit = _unit_float64(generator, math.prod(shape))
    return ((-1.0 / float(rate)) * _c_log1p(-unit)).astype(dtype).reshape(shape)


def cauchy(generator, shape, dtype, median: float = 0.0, sigma: float = 1.0) -> np.ndarray:
    """``Cauchy(median, sigma)``: ``median + sigma * tan(pi * (u - 1/2))`` in double (PyTorch's CPU ``cauchy_``).

    ``tan`` maps the uniform angle ``pi * (u - 1/2)`` in ``(-pi/2, pi/2)`` to the whole line: the inverse of
    the Cauchy CDF ``F(x) = 1/2 + arctan((x - median) / sigma) / pi``.
    """
    unit = _unit_float64(generator, math.prod(shape))
    return _fma64(_c_elementwise(math.tan, math.pi * (unit - 0.5)), float(sigma), float(median)).astype(
        dtype).reshape(shape)


def log_normal(generator, shape, dtype, mean: float = 1.0, std: float = 2.0) -> np.ndarray:
    """``exp(N(mean, std^2))``: the scalar normal draw (Box-Muller, one sample cached), then the C library's ``exp``."""
    normal_values = _normal_scalar(generator, math.prod(shape), float(mean), float(std))
    return _c_elementwise(math.exp, normal_values).astype(dtype).reshape(shape)


def geometric(generator, shape, dtype, p: float) -> np.ndarray:
    """The number of Bernoulli(``p``) trials up to the first success: ``ceil(log(u) / log(1 - p))`` (inverse CDF)."""
    unit = _unit_float64(generator, math.prod(shape))
    return np.ceil(_c_log(unit) / math.log1p(-float(p))).astype(dtype).reshape(shape)


def bernoulli_tensor(generator, probabilities: np.ndarray, dtype) -> np.ndarray:
    """1 with probability ``p`` per element: ``u < p`` with a float64 ``u`` for float64 ``p``, else float32."""
    probabilities = np.asarray(probabilities)
    count = probabilities.size
    if probabilities.dtype == np.float64:
        unit = _unit_float64(generator, count)
    else:
        unit = _unit_float32(generator, count)
        probabilities = probabilities.astype(np.float32)
    return (unit < probabilities.reshape(-1)).astype(dtype).reshape(probabilities.shape)


def bernoulli_scalar(generator, shape, dtype, p: float) -> np.ndarray:
    """1 with probability ``p``: PyTorch's portable kernel (``u < p``, a float64 ``u``).

    PyTorch 2.13 takes this kernel (checked on an Intel CPU, where older releases used MKL).
    Builds that route it through MKL draw one word to seed an MKL stream instead; those numbers
    cannot be reproduced here.
    """
    return (_unit_float64(generator, math.prod(shape)) < float(p)).astype(dtype).reshape(shape)


def randperm(generator, n: int) -> np.ndarray:
    """PyTorch's CPU permutation: for ``i`` in ``0 .. n-2`` swap entries ``i`` and ``i + word % (n - i)``.

    The swaps depend on each other, so they run one after another; the draws are vectorised.
    """
    n = int(n)
    order = list(range(n))
    if n > 1:
        offsets = (generator.random32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)).tolist()
        for i, offset in enumerate(offsets):
            j = i + offset
            order[i], order[j] = order[j], order[i]
    return np.asarray(order, dtype=np.int64)


def multinomial(generator, weights: np.ndarray, num_samples: int, replacement: bool) -> np.ndarray:
    """Indices drawn from each row of ``weights`` (2-D), as PyTorch's CPU ``multinomial``.

    Without replacement (or for a single sample): ``argmax``/``topk`` of ``weights / q`` with
    ``q ~ Exp(1)`` drawn in the weights' dtype. With replacement: per row, the normalised
    cumulative sum (in the weights' dtype, its last entry set to 1), and for each sample the
    first bucket whose cumulative probability reaches a float64 uniform.
    """
    rows, categories = weights.shape
    if not replacement or num_samples == 1:
        q = exponential(generator, weights.shape, weights.dtype)
        keys = weights / q
        if num_samples == 1:
            return np.argmax(keys, axis=1)[:, None].astype(np.int64)
        # topk: largest first; equal keys keep the lower index first
        return np.argsort(-keys, axis=1, kind="stable")[:, :num_samples].astype(np.int64)
    cumulative = np.cumsum(weights, axis=1, dtype=weights.dtype)
    cumulative = cumulative / cumulative[:, -1:]
    cumulative[:, -1] = 1
    result = np.empty((rows, num_samples), dtype=np.int64)
    for row in range(rows):  # rows draw one after another from the stream
        draws = _unit_float64(generator, num_samples)
        result[row] = np.searchsorted(cumulative[row].astype(np.float64), draws, side="left")
    return result
