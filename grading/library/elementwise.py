"""Chapter 1's GPU kernel: a CuPy ``ElementwiseKernel`` the learner writes, and what runs it where there is no GPU.

On a machine with a GPU and CuPy, the learner's kernel is CuPy's: NVRTC compiles its CUDA C body and one GPU thread
computes each element. Without one, :func:`gpu` hands out a **stand-in** with CuPy's interface for what the
exercise needs (``asarray``, ``asnumpy``, ``empty``, ``ElementwiseKernel``, the dtypes). Its arrays hold NumPy
arrays inside and refuse to be read as NumPy arrays, as CuPy's do. Its :class:`ElementwiseKernel` follows CuPy's
rules (``cupy/_core/_kernel.pyx``) for everything around the body:

* the parameters: ``"T x, float32 alpha"`` (a one-letter type is a placeholder, bound by the first array argument
  that uses it; any other type a fixed dtype), ``raw`` parameters (indexed with ``[]``, not broadcast), ``i`` refused
  as a parameter name;
* a call: inputs, optionally followed by every output array; a NumPy array refused; a fixed-type argument of another
  dtype refused ("Type is mismatched. x <class 'numpy.float64'> <class 'numpy.float32'>"), as two arrays bound to one
  placeholder with different dtypes are; the non-raw arrays broadcast together; outputs made with the broadcast shape
  (their memory uninitialised, as ``cupy.empty``'s) or given, and then of exactly that shape; the output returned;

and it runs the body by **interpreting a small, documented subset of CUDA C** with NumPy, all elements at once:

* statements separated by ``;``: ``name = expression``, ``name op= expression`` (``+ - * /``), and declarations
  ``[const] type name = expression`` (types: the placeholders, ``float``, ``double``, ``int``, ``long long``,
  ``bool``, ``float16/32/64``, ``int32/64``);
* expressions: numbers (``2``, ``0.5``, ``1e-3``, ``0.5f``), names (parameters, locals, ``i`` the element's index
  in the output, ``_ind.size()``), ``raw[index]``, ``( )``, casts ``(type)``, unary ``- + !``, ``* / %``, ``+ -``,
  ``< <= > >=``, ``== !=``, ``&&``, ``||``, ``c ? a : b``, and the math functions of :data:`FUNCTIONS`; integer
  ``/`` and ``%`` truncate toward zero, as C's do.

A body outside the subset (``if``, loops, pointers, other functions) is refused with a message that says so: a real
GPU compiles all of CUDA C. Evaluating every element at once gives what the threads give because each thread of an
elementwise kernel computes its own output element from its own inputs, independently of the others; a ``raw``
index out of range, which on a GPU reads memory past the array, is an error here.
"""

from __future__ import annotations

import re
import types

import numpy as np

IMPLICIT_CONVERSION = ("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
                       "NumPy array explicitly.")  # fmt: skip
C_TYPES = {"float": np.float32, "double": np.float64, "int": np.int32, "long long": np.int64, "bool": np.bool_,
           "float16": np.float16, "float32": np.float32, "float64": np.float64, "int32": np.int32,
           "int64": np.int64}  # fmt: skip
FUNCTIONS = {
    "exp": np.exp, "expf": np.exp, "log": np.log, "logf": np.log, "sqrt": np.sqrt, "sqrtf": np.sqrt,
    "tanh": np.tanh, "tanhf": np.tanh, "sin": np.sin, "cos": np.cos, "fabs": np.abs, "abs": np.abs,
    "erf": None, "erff": None, "pow": np.power, "powf": np.power, "max": np.maximum, "min": np.minimum,
    "fmax": np.fmax, "fmin": np.fmin, "floor": np.floor, "ceil": np.ceil, "rsqrt": lambda v: 1 / np.sqrt(v),
}  # fmt: skip


class UnsupportedC(SyntaxError):
    """A kernel body outside the subset of CUDA C the stand-in interprets."""


def _erf(values):
    from scipy.special import erf

    return erf(values)


# -- the stand-in's arrays --------------------------------------------------------------------------------------
class ndarray:  # noqa: N801 - CuPy's name
    """An array "on the GPU": a NumPy array inside, read back only with ``get()`` / ``asnumpy``."""

    def __init__(self, host: np.ndarray):
        self._host = host

    shape = property(lambda self: self._host.shape)
    dtype = property(lambda self: self._host.dtype)
    strides = property(lambda self: self._host.strides)
    ndim = property(lambda self: self._host.ndim)
    size = property(lambda self: self._host.size)
    T = property(lambda self: ndarray(self._host.T))

    def __array__(self, dtype=None, copy=None):
        raise TypeError(IMPLICIT_CONVERSION)

    def __getitem__(self, key):
        return ndarray(self._host[key])

    def transpose(self, *axes):
        return ndarray(self._host.transpose(*axes))

    def reshape(self, *shape):
        return ndarray(self._host.reshape(*shape))

    def get(self):
        return self._host.copy()

    def __repr__(self):
        return f"array({self._host!r}) (on the stand-in GPU)"


def _asarray(values, dtype=None):
    if isinstance(values, ndarray):
        return values if dtype is None else ndarray(values._host.astype(dtype))
    return ndarray(np.array(values, dtype=dtype, copy=True))


def _asnumpy(array):
    return array.get() if isinstance(array, ndarray) else np.asarray(array)


def _empty(shape, dtype=np.float64):
    return ndarray(np.full(shape, np.nan, dtype=dtype) if np.dtype(dtype).kind == "f" else np.empty(shape, dtype))


def standin() -> types.ModuleType:
    """The stand-in module: the part of CuPy's interface chapter 1's kernel uses."""
    module = types.ModuleType("cupy (stand-in)")
    module.ndarray, module.asarray, module.asnumpy, module.empty = ndarray, _asarray, _asnumpy, _empty
    module.ElementwiseKernel = lambda *args, **kwargs: ElementwiseKernel(*args, **kwargs)
    module.float16, module.float32, module.float64 = np.float16, np.float32, np.float64
    module.int32, module.int64 = np.int32, np.int64
    return module


def gpu():
    """CuPy on a machine with a GPU; else the stand-in (:func:`which` says which one it is)."""
    try:
        import cupy

        if _is_real(cupy) and cupy.cuda.runtime.getDeviceCount() > 0:
            return cupy
    except Exception:  # noqa: BLE001 - no CuPy, no driver or no device: the stand-in
        pass
    return standin()


def _is_real(module) -> bool:
    """CuPy itself, not a stand-in (this one, or the tests' CuPy stand-in of tests/gpu_standin)."""
    return module.__name__ == "cupy" and "gpu_standin" not in str(getattr(module, "__file__", ""))


def which(module) -> str:
    """One line: where a kernel made with ``module`` runs."""
    if _is_real(module):
        return "your kernel runs on the GPU, compiled by CuPy"
    return "no GPU here: your kernel runs on the stand-in, which interprets its C body with NumPy"


# -- parameters and types ------------------------------------------------------------------------------------------
class Parameter:
    def __init__(self, text: str, is_input: bool):
        words = text.split()
        if len(words) < 2:
            raise Exception(f"Syntax error: {text}")  # noqa: TRY002 - CuPy's exception
        *keywords, kind, self.name = words
        self.raw, self.is_input = False, is_input
        for keyword in keywords:
            if keyword != "raw":
                raise Exception(f'Unknown keyword "{keyword}"')  # noqa: TRY002 - CuPy's exception
            self.raw = True
        self.placeholder = kind if len(kind) == 1 else None
        self.dtype = None
        if self.placeholder is None:
            dtype = np.dtype(kind)
            if dtype.name != kind:
                raise ValueError(f"Wrong type {kind}")
            self.dtype = dtype


def _parameters(text: str, is_input: bool) -> list[Parameter]:
    return [Parameter(part.strip(), is_input) for part in text.split(",") if part.strip()]


def _array_of(value):
    """The NumPy array inside a device array (this stand-in's or the tests' CuPy stand-in's); None for a scalar."""
    if isinstance(value, ndarray):
        return value._host
    inside = getattr(type(value), "__module__", "") == "tests.gpu_standin" and hasattr(value, "_host")
    if inside:
        return value._host
    if isinstance(value, np.ndarray):
        raise TypeError(f"Unsupported type {type(value)}")
    return None


class ElementwiseKernel:
    """CuPy's ``ElementwiseKernel`` on the stand-in (see the module docstring for what it runs and how)."""

    def __init__(self, in_params, out_params, operation, name="kernel", reduce_dims=True, preamble="",
                 no_return=False, return_tuple=False, *, loop_prep="", after_loop="", options=(),
                 wrap=None):  # fmt: skip
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise ValueError(f'Invalid kernel name: "{name}"')
        self.in_params, self.out_params = _parameters(in_params, True), _parameters(out_params, False)
        if "i" in [parameter.name for parameter in self.in_params + self.out_params]:
            raise ValueError("Can not use 'i' as a parameter name")
        for part, what in ((preamble, "preamble"), (loop_prep, "loop_prep"), (after_loop, "after_loop")):
            if part.strip():
                raise UnsupportedC(f"the stand-in runs the kernel's body only, not a {what}: a real GPU compiles it")
        self.name, self.operation, self.no_return, self.return_tuple = name, operation, no_return, return_tuple
        self._statements = _parse_body(operation)
        self._wrap = wrap or ndarray

    def __call__(self, *args, size=None, stream=None, block_size=128):
        nin, nout = len(self.in_params), len(self.out_params)
        if len(args) not in (nin, nin + nout):
            raise TypeError(f"Wrong number of arguments for {self.name}")
        arrays = [_array_of(value) for value in args]
        outs = arrays[nin:] if len(args) > nin else None
        if outs is not None and any(out is None for out in outs):
            raise TypeError("Output arguments must be cupy.ndarray")
        bound: dict[str, np.dtype] = {}
        for parameter, array in zip(self.out_params + self.in_params, (outs or [None] * nout) + arrays[:nin]):
            if array is None:
                continue
            if parameter.dtype is not None:
                if array.dtype != parameter.dtype:
                    raise TypeError(f"Type is mismatched. {parameter.name} {array.dtype.type} {parameter.dtype.type}")
            elif parameter.placeholder in bound:
                if bound[parameter.placeholder] != array.dtype:
                    raise TypeError(f"Type is mismatched. {parameter.name} {array.dtype.type} "
                                    f"{bound[parameter.placeholder].type} {parameter.placeholder}")  # fmt: skip
            else:
                bound[parameter.placeholder] = array.dtype

        def dtype_of(parameter):
            if parameter.dtype is not None:
                return parameter.dtype
            if parameter.placeholder not in bound:
                raise TypeError(f"Cannot determine the type of {parameter.placeholder} ({parameter.name}): no array "
                                "argument uses it")  # fmt: skip
            return bound[parameter.placeholder]

        broadcast = [array for parameter, array in zip(self.in_params, arrays)
                     if array is not None and not parameter.raw]  # fmt: skip
        if size is not None:
            raise UnsupportedC("the stand-in runs kernels whose size comes from broadcasting (no size=)")
        if not broadcast and not (outs and any(not p.raw for p in self.out_params)):
            raise ValueError("Loop size is undecided.")
        shape = np.broadcast_shapes(*(array.shape for array in broadcast)) if broadcast else outs[0].shape
        if outs is None:
            outs = [np.full(shape, np.nan, dtype_of(p)) if dtype_of(p).kind == "f" else np.zeros(shape, dtype_of(p))
                    for p in self.out_params]  # fmt: skip
            given = None
        else:
            for parameter, out in zip(self.out_params, outs):
                if not parameter.raw and out.shape != shape:
                    raise ValueError(f"Out shape is mismatched: {out.shape} while {shape} is expected.")
            given = [args[nin + k] for k in range(nout)]
        names = {"i": np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape), "_ind.size()": np.prod(shape)}
        types_ = dict(C_TYPES, **{placeholder: dtype.type for placeholder, dtype in bound.items()})
        for parameter, value, array in zip(self.in_params, args, arrays):
            if array is None:  # a Python scalar: cast to the parameter's type, as CuPy does
                names[parameter.name] = dtype_of(parameter).type(value)
            elif parameter.raw:
                names[parameter.name] = _Raw(parameter.name, array)
            else:
                names[parameter.name] = np.broadcast_to(array, shape)
        results = {}
        with np.errstate(all="ignore"):  # both branches of ?: are evaluated; the one not taken may overflow
            _run(self._statements, names, types_, self.out_params, self.in_params, results)
        for parameter, out in zip(self.out_params, outs):
            if parameter.name not in results:
                raise UnsupportedC(f"the body never assigns the output {parameter.name}: on a GPU it would hold "
                                   "whatever its memory held")  # fmt: skip
            out[...] = np.asarray(results[parameter.name]).astype(out.dtype)
        returned = given if given is not None else [self._wrap(out) for out in outs]
        if self.no_return:
            return None
        return returned[0] if nout == 1 and not self.return_tuple else tuple(returned)


class _Raw:
    """A raw argument: ``name[index]`` reads the index-th element in row-major order, with no broadcasting."""

    def __init__(self, name, array):
        self.name, self.flat = name, np.ascontiguousarray(array).reshape(-1)

    def read(self, index):
        index = np.asarray(index)
        if index.dtype.kind not in "iu":
            raise UnsupportedC(f"{self.name}[...] needs an integer index")
        if index.size and (index.min() < 0 or index.max() >= self.flat.size):
            raise IndexError(f"{self.name}[{int(index.max())}] reads past the end of the raw array {self.name} "
                             f"({self.flat.size} elements): on a GPU that reads memory outside it (garbage, or an "
                             "illegal memory access)")  # fmt: skip
        return self.flat[index]


# -- the interpreter: a tokenizer, a parser of the subset into tuples, an evaluator over NumPy arrays ---------------
_TOKEN = re.compile(r"\s*(?:(\d+\.\d*(?:[eE][-+]?\d+)?f?|\.\d+(?:[eE][-+]?\d+)?f?|\d+[eE][-+]?\d+f?|\d+f?)"
                    r"|(long\s+long|_ind\.size\(\)|[A-Za-z_][A-Za-z0-9_]*)"
                    r"|(\+=|-=|\*=|/=|==|!=|<=|>=|&&|\|\||[-+*/%<>!?:()\[\],=]))")  # fmt: skip
_BINARY = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%")]
_TYPE_WORDS = set(C_TYPES)


def _tokens(text: str) -> list[str]:
    tokens, position = [], 0
    text = text.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if not match or match.end() == position:
            raise UnsupportedC(f"the stand-in's subset of CUDA C has no {text[position:].strip()[:20]!r} (a real "
                               "GPU compiles all of CUDA C; the subset is listed in grading/library/elementwise.py)")
        tokens.append(" ".join(match.group(0).split()))
        position = match.end()
    return tokens


def _parse_body(body: str) -> list[tuple]:
    statements = []
    for text in body.split(";"):
        if not text.strip():
            continue
        keyword = re.match(r"\s*(if|for|while|return|else|do|switch)\b", text)
        if keyword:
            raise UnsupportedC(f"the stand-in's subset of CUDA C has no '{keyword.group(1)}' statement: write the "
                               "choice with ?: (a real GPU compiles all of CUDA C)")  # fmt: skip
        tokens = _tokens(text)
        parser = _Parser(tokens)
        if parser.peek() == "const":
            parser.take()
        declared = None
        if parser.peek() in _TYPE_WORDS or (len(parser.peek() or "") == 1 and parser.peek(1) not in
                                             (None, "=", "+=", "-=", "*=", "/=")):  # fmt: skip
            declared = parser.take()
        name = parser.take()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
            raise UnsupportedC(f"expected a name to assign to in {text.strip()!r}")
        operator = parser.take()
        if operator not in ("=", "+=", "-=", "*=", "/=") or (declared and operator != "="):
            raise UnsupportedC(f"expected 'name = expression' in {text.strip()!r}")
        expression = parser.expression()
        if parser.peek() is not None:
            raise UnsupportedC(f"unexpected {parser.peek()!r} in {text.strip()!r}")
        statements.append((declared, name, operator, expression))
    return statements


class _Parser:
    def __init__(self, tokens):
        self.tokens, self.at = tokens, 0

    def peek(self, ahead=0):
        return self.tokens[self.at + ahead] if self.at + ahead < len(self.tokens) else None

    def take(self, expected=None):
        token = self.peek()
        if expected is not None and token != expected:
            raise UnsupportedC(f"expected {expected!r}, found {token!r}")
        self.at += 1
        return token

    def expression(self):
        condition = self.binary(0)
        if self.peek() == "?":
            self.take()
            chosen = self.expression()
            self.take(":")
            return ("?", condition, chosen, self.expression())
        return condition

    def binary(self, level):
        if level == len(_BINARY):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in _BINARY[level]:
            operator = self.take()
            left = (operator, left, self.binary(level + 1))
        return left

    def unary(self):
        token = self.peek()
        if token in ("-", "+", "!"):
            self.take()
            return ("unary" + token, self.unary())
        if token == "(" and (self.peek(1) in _TYPE_WORDS or (len(self.peek(1) or "") == 1 and self.peek(2) == ")"
                                                             and self.peek(1).isupper())):  # fmt: skip
            self.take()
            kind = self.take()
            self.take(")")
            return ("cast", kind, self.unary())
        return self.primary()

    def primary(self):
        token = self.take()
        if token is None:
            raise UnsupportedC("the expression ends too early")
        if token == "(":
            inner = self.expression()
            self.take(")")
            return inner
        if re.match(r"[\d.]", token):
            if token.endswith("f"):
                return ("number", np.float32(token[:-1]))
            return ("number", int(token) if re.fullmatch(r"\d+", token) else float(token))
        if token == "_ind.size()":
            return ("name", token)
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", token):
            raise UnsupportedC(f"unexpected {token!r}")
        if self.peek() == "(":
            if token not in FUNCTIONS:
                raise UnsupportedC(f"the stand-in has no function {token}(): it knows {', '.join(FUNCTIONS)}")
            self.take()
            arguments = [self.expression()]
            while self.peek() == ",":
                self.take()
                arguments.append(self.expression())
            self.take(")")
            return ("call", token, arguments)
        if self.peek() == "[":
            self.take()
            index = self.expression()
            self.take("]")
            return ("index", token, index)
        return ("name", token)


def _run(statements, names, types_, out_params, in_params, results) -> None:
    outputs = {parameter.name: parameter for parameter in out_params}
    inputs = {parameter.name for parameter in in_params}
    local_types = {}
    for declared, name, operator, expression in statements:
        value = _evaluate(expression, names, types_)
        if declared is not None:
            local_types[name] = np.dtype(types_[declared])
        elif name in inputs:
            raise UnsupportedC(f"{name} is an input of the kernel, which it may not change (CUDA: expression must be "
                               "a modifiable lvalue)")  # fmt: skip
        elif name not in outputs and name not in local_types:
            raise UnsupportedC(f"{name} is not declared (CUDA: identifier \"{name}\" is undefined)")
        if operator != "=":
            value = _evaluate((operator[0], ("name", name), ("value", value)), names, types_)
        target = local_types.get(name)
        if name in outputs:
            results[name] = value  # cast to the output's dtype when stored
            target = None
        names[name] = np.asarray(value).astype(target) if target is not None else value


def _c_divide(left, right):
    left, right = np.asarray(left), np.asarray(right)
    if left.dtype.kind in "iub" and right.dtype.kind in "iub":  # C's integer division truncates toward zero
        quotient = np.trunc(np.true_divide(left, right))
        return quotient.astype(np.result_type(left, right))
    return left / right


def _evaluate(node, names, types_):
    kind = node[0]
    if kind == "number":
        return node[1]
    if kind == "value":
        return node[1]
    if kind == "name":
        if node[1] not in names:
            raise UnsupportedC(f"identifier \"{node[1]}\" is undefined")
        value = names[node[1]]
        if isinstance(value, _Raw):
            raise UnsupportedC(f"{node[1]} is raw: read it as {node[1]}[index]")
        return value
    if kind == "index":
        raw = names.get(node[1])
        if not isinstance(raw, _Raw):
            raise UnsupportedC(f"{node[1]} is not a raw parameter: in an elementwise kernel it is already this "
                               f"thread's element, so {node[1]}[...] does not index an array")  # fmt: skip
        return raw.read(_evaluate(node[2], names, types_))
    if kind == "call":
        arguments = [_evaluate(argument, names, types_) for argument in node[2]]
        function = _erf if node[1] in ("erf", "erff") else FUNCTIONS[node[1]]
        return function(*arguments)
    if kind == "cast":
        return np.asarray(_evaluate(node[2], names, types_)).astype(types_[node[1]])
    if kind == "?":
        condition = np.asarray(_evaluate(node[1], names, types_)) != 0
        return np.where(condition, _evaluate(node[2], names, types_), _evaluate(node[3], names, types_))
    if kind.startswith("unary"):
        value = _evaluate(node[1], names, types_)
        return {"unary-": lambda: -value, "unary+": lambda: value, "unary!": lambda: np.logical_not(value)}[kind]()
    left, right = _evaluate(node[1], names, types_), _evaluate(node[2], names, types_)
    if kind == "/":
        return _c_divide(left, right)
    if kind == "%":
        return np.fmod(left, right)
    if kind == "&&":
        return np.logical_and(left, right)
    if kind == "||":
        return np.logical_or(left, right)
    operations = {"+": np.add, "-": np.subtract, "*": np.multiply, "<": np.less, "<=": np.less_equal,
                  ">": np.greater, ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}  # fmt: skip
    return operations[kind](left, right)


# -- chapter 1's exercise: a fused bias + GELU kernel, and the report its check compares ------------------------------
GPU_KERNEL_OUTPUTS = (
    "the result's values (on the host)",
    "bytes per element of the result (float32 in gives float32, float64 gives float64)",
    "the result's shape",
    "1 where the call returned the output array it was given (out=), else 0",
)


def kernel_report(make_kernel, cupy, x, transpose, bias, with_out):
    """Run ``make_kernel(cupy)`` (the learner's ElementwiseKernel for gelu_tanh(x + bias)) on device copies of
    ``x`` (transposed, a view with other strides, when ``transpose``) and ``bias``; with ``with_out``, into an output
    array made first. Returns the four outputs of :data:`GPU_KERNEL_OUTPUTS`."""
    kernel = make_kernel(cupy)
    device_x = cupy.asarray(np.asarray(x))
    if int(transpose):
        device_x = device_x.T
    device_bias = cupy.asarray(np.asarray(bias))
    if int(with_out):
        out = cupy.empty(device_x.shape, dtype=device_x.dtype)
        result = kernel(device_x, device_bias, out)
        returned_out = result is out
    else:
        result, returned_out = kernel(device_x, device_bias), False
    values = cupy.asnumpy(result)
    return (values.astype(np.float64), np.array(values.dtype.itemsize), np.array(values.shape, dtype=np.int64),
            np.array(int(returned_out)))  # fmt: skip


def minitorch_bias_gelu(cupy):
    """minitorch's ``F.gelu(x + bias, approximate="tanh")`` with the learner's kernel's interface (computed on the
    host: the reference the check compares with)."""
    import minitorch
    import minitorch.nn.functional as F

    def kernel(x, bias, out=None):
        host = F.gelu(minitorch.from_numpy(cupy.asnumpy(x)) + minitorch.from_numpy(cupy.asnumpy(bias)),
                      approximate="tanh").numpy()  # fmt: skip
        if out is None:
            return cupy.asarray(host)
        if isinstance(out, ndarray) or hasattr(out, "_host"):  # a stand-in's array
            out._host[...] = host
        else:
            out[...] = cupy.asarray(host)
        return out

    return kernel
