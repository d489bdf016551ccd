"""The capstone on the learner's own library: chapter 15's character-level model, trained on the learner's pieces.

The capstone's language model is one transformer block (chapter 15). Here it is built and trained from a **kit**:
the pieces one library offers (a ``Module`` base, its ``Parameter``, the layers' functions, attention, the loss,
``AdamW``, the engine's ``backward``, a ``DataLoader`` and the tensor that cuts the training windows). Three kits
train the same model from the same initial values on the same batches:

* ``your_kit``: the learner's pieces, each taken with :func:`grading.library.use` (a blank or failing piece falls
  back to minitorch's, and the line that announces the piece says which and why);
* ``minitorch_kit``: minitorch's own pieces;
* ``pytorch_kit``: PyTorch's (when it is installed), the reference all of it imitates.

Because everything but the kit is shared (the model's code, the initial values, the batches, the schedule), the
three runs' losses should agree to float32 rounding, step after step; :func:`side_by_side` prints them.

**Your engine on minitorch's graph.** Chapter 2's ``backward(tensor)`` schedules nodes (dependency counts, a ready
queue by ``sequence_nr``) on the chapter's small tensor: it calls ``node(gradient)`` with arrays, follows
``next_functions`` and starts from ``ones_like(tensor.data)``. :func:`engine_backward` hands it minitorch's real
graph through thin views with exactly that interface: each view's call runs one minitorch node's backward
(``graph.call_node``), and a leaf's view adds into ``.grad``. The learner's engine decides the order and adds the
gradients up; minitorch's ops supply each node's local derivative. The model avoids ops with several outputs
(``chunk``), since chapter 2's engine keeps one gradient per node.

**Your Function, Context and AccumulateGrad record the graph.** When chapter 2's ``Function.apply`` is the learner's
(and their engine too, which alone can run what it records), every training step's graph is recorded again through
it (:func:`record_with`): one ``Function.apply`` per node of minitorch's graph, in the order minitorch made them, so
the learner's ``Context`` is every node (``next_functions``, ``needs_input_grad``, ``sequence_nr``, ``ctx`` keeping
the minitorch node whose local derivative it computes) and the learner's ``AccumulateGrad`` collects every
parameter's gradient, which is then added into the parameter's ``.grad``. The learner's ``backward`` runs those
nodes. minitorch's forward computed the values and its ops' backward formulas compute each local derivative; the
graph, its scheduling and the accumulation are the learner's. When ``Function`` is blank, the learner's engine runs
minitorch's own nodes through views (above); when both are blank, ``loss.backward()`` does it all.

**Your tensor cuts the windows.** Chapter 1's ``StridedTensor`` is not differentiable, so the arithmetic runs on
minitorch's tensor; what a strided tensor is made for, it does here: every training window is an ``as_strided``
view of the text's storage (shape ``(block_size + 1,)``, stride 1, offset the window's start), read through its
``positions()``. With ``tensor="minitorch"`` minitorch's strided tensor does the same.
"""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import minitorch
import minitorch.nn as nn
import minitorch.nn.functional as F
from grading.library import BLANK, FAILING, MISSING, UNCHECKED, YOURS, UnknownPiece, find, piece
from grading.library.tensor import MinitorchStridedTensor
from minitorch.autograd import graph
from minitorch.utils.data import DataLoader as MinitorchDataLoader


# -- the pieces' announcement ---------------------------------------------------------------------------------
def _take(name: str, namespace: dict | None, lines: list[str], what: str):
    """The learner's piece ``name`` or minitorch's, and one line that says which (and why, when minitorch's)."""
    found = find(name, namespace)
    exercises = ", ".join(found.piece.checks)
    if found.status == YOURS:
        lines.append(f"  {what:<34} yours ({name}, {found.source})")
        return found.value, True
    reason = {
        BLANK: f"yours is blank: {exercises}",
        FAILING: f"yours is failing: {found.detail}",
        MISSING: f"yours was not found: {found.detail}",
        UNCHECKED: f"yours cannot be checked here: {found.detail}",
    }[found.status]
    lines.append(f"  {what:<34} minitorch's ({reason})")
    return found.piece.fallback(), False


def _take_loader(namespace: dict | None, lines: list[str]):
    """The learner's DataLoader when a chapter registers it as a piece; else minitorch's, said in one line."""
    try:
        return _take("DataLoader", namespace, lines, "loader (DataLoader, chapter 6)")
    except UnknownPiece:
        lines.append(f"  {'loader (DataLoader, chapter 6)':<34} minitorch's (no DataLoader piece in this course yet)")
        return MinitorchDataLoader, False


# -- the kits -----------------------------------------------------------------------------------------------
@dataclass
class Kit:
    """The pieces one library offers the capstone's model and its training loop."""

    name: str
    Module: Any  # the base class of every layer
    Parameter: Any
    tensor: Any  # array -> a tensor of this library
    embedding: Any  # (weight, ids) -> weight[ids]
    linear: Any  # (x, weight, bias) -> x @ weight.T + bias
    layer_norm: Any  # (x, weight, bias) -> the layer norm over the last dimension
    relu: Any
    attention: Any  # (query, key, value, mask, is_causal) -> softmax(Q Kᵀ / √d + masks) V
    loss: Any  # (logits (N, C), targets (N,)) -> the mean cross-entropy
    AdamW: Any
    backward: Any  # loss -> fills .grad
    DataLoader: Any
    Strided: Any = None  # the strided tensor that cuts the windows (numpy slicing when None)
    no_grad: Any = None
    lines: list[str] = field(default_factory=list)  # which pieces are the learner's, one line each
    yours: int = 0  # how many of them


def minitorch_kit() -> Kit:
    return Kit(
        "minitorch", nn.Module, nn.Parameter, minitorch.tensor, lambda weight, ids: F.embedding(ids, weight),
        F.linear, _layer_norm(F), F.relu, _sdpa(F), F.cross_entropy, minitorch.optim.AdamW,
        lambda loss: loss.backward(), MinitorchDataLoader, None, minitorch.no_grad,
    )  # fmt: skip


def pytorch_kit() -> Kit | None:
    """PyTorch's pieces, or None where PyTorch is not installed (the comparison then leaves it out)."""
    try:
        import torch
    except ImportError:
        return None
    import torch.nn.functional as functional
    from torch.utils.data import DataLoader

    return Kit(
        "PyTorch", torch.nn.Module, torch.nn.Parameter, torch.tensor,
        lambda weight, ids: functional.embedding(ids, weight), functional.linear, _layer_norm(functional),
        functional.relu, _sdpa(functional), functional.cross_entropy, torch.optim.AdamW,
        lambda loss: loss.backward(), DataLoader, None, torch.no_grad,
    )  # fmt: skip


def _layer_norm(functional):
    return lambda x, weight, bias: functional.layer_norm(x, (x.shape[-1],), weight, bias)


def _sdpa(functional):
    return lambda query, key, value, mask, is_causal: functional.scaled_dot_product_attention(
        query, key, value, attn_mask=mask, is_causal=is_causal
    )


def your_kit(namespace: dict | None = None, tensor: str = "yours") -> Kit:
    """The learner's pieces (from ``namespace``, the capstone's own cells, and from the saved chapters), each
    announced in ``kit.lines``: "yours", or "minitorch's" and why (10 lines: chapter 2's recording, ``Function``
    with its ``Context`` and ``AccumulateGrad``, is one). ``tensor`` is the learner's choice of the
    tensor that cuts the training windows: "yours" (chapter 1's StridedTensor) or "minitorch". ``namespace`` is
    the calling notebook's names (by default the calling cell's globals), as for ``use``."""
    if namespace is None:
        namespace = inspect.currentframe().f_back.f_globals
    if tensor not in ("yours", "minitorch"):
        raise ValueError(f"tensor is 'yours' or 'minitorch', got {tensor!r}")
    lines: list[str] = []
    if tensor == "yours":
        Strided, mine = _take("StridedTensor", namespace, lines, "tensor (StridedTensor, chapter 1)")
    else:
        Strided, mine = MinitorchStridedTensor, False
        lines.append(f"  {'tensor (StridedTensor, chapter 1)':<34} minitorch's (your choice: tensor='minitorch')")
    count = int(mine)
    taken = {}
    for name, what in (
        ("backward", "engine (backward, chapter 2)"),
        ("MyModule", "Module (MyModule, chapter 4)"),
        ("linear_forward", "linear layers (chapter 4)"),
        ("SoftmaxCrossEntropy", "loss (SoftmaxCrossEntropy, ch. 5)"),
        ("AdamW", "optimizer (AdamW, chapter 5)"),
        ("attention", "attention (chapter 9)"),
        ("EmbeddingLookup", "embedding (EmbeddingLookup, ch. 15)"),
    ):
        taken[name], mine = _take(name, namespace, lines, what)
        count += mine
    DataLoader, mine = _take_loader(namespace, lines)
    count += mine
    backward = taken["backward"]
    engine_is_yours = backward is not minitorch.autograd.backward
    Function, mine = _take_recording(namespace, lines, engine_is_yours)
    count += mine
    if mine:  # your Function.apply records the graph, your AccumulateGrad fills .grad, your engine runs it
        engine = _recorded_engine(Function, backward)
    elif engine_is_yours:  # your engine schedules minitorch's recorded nodes
        engine = _engine(backward)
    else:
        engine = lambda loss: loss.backward()  # noqa: E731
    lookup, loss = taken["EmbeddingLookup"], taken["SoftmaxCrossEntropy"]
    return Kit(
        "your library", taken["MyModule"], nn.Parameter, minitorch.tensor, lookup.apply, taken["linear_forward"],
        _layer_norm(F), F.relu, taken["attention"], loss.apply, taken["AdamW"], engine, DataLoader, Strided,
        minitorch.no_grad, lines, count,
    )  # fmt: skip


class MinitorchEmbeddingLookup:
    """``apply(weight, ids)``: ``weight[ids]`` by minitorch's ``F.embedding`` (the capstone's exercise 2 blank)."""

    @staticmethod
    def apply(weight, ids):
        return F.embedding(ids, weight)


piece("EmbeddingLookup", chapter="15_capstone", cells=("ch15-embedding",),
      checks={"ch15.embedding_forward_backward": "embedding_forward_backward"},
      fallback=lambda: MinitorchEmbeddingLookup)  # fmt: skip


def _take_recording(namespace: dict | None, lines: list[str], engine_is_yours: bool):
    """Chapter 2's ``Function`` (with its ``Context`` and ``AccumulateGrad``: one exercise, ch02.record_program) when
    the learner's, and their engine is too (only their engine runs the nodes their ``apply`` records); else None."""
    what = "recording (Function, ctx, ch. 2)"
    found = {name: find(name, namespace) for name in ("Function", "Context", "AccumulateGrad")}
    statuses = {entry.status for entry in found.values()}
    if statuses == {YOURS}:
        if engine_is_yours:
            lines.append(f"  {what:<34} yours (Function, Context, AccumulateGrad, {found['Function'].source})")
            return found["Function"].value, True
        lines.append(f"  {what:<34} minitorch's (yours needs your engine to run it: "
                     f"{', '.join(found['Function'].piece.checks)} passes, the engine does not)")  # fmt: skip
        return None, False
    first = next(entry for entry in found.values() if entry.status != YOURS)
    exercises = ", ".join(first.piece.checks)
    reason = {
        BLANK: f"yours is blank: {exercises}",
        FAILING: f"yours is failing: {first.detail}",
        MISSING: f"yours was not found: {first.detail}",
        UNCHECKED: f"yours cannot be checked here: {first.detail}",
    }[first.status]
    lines.append(f"  {what:<34} minitorch's ({reason})")
    return None, False


# -- chapter 2's Function, Context and AccumulateGrad record minitorch's graph again ----------------------------
def record_with(Function, loss):
    """The graph of ``loss`` recorded again through the learner's chapter 2 ``Function.apply``: one node per node of
    minitorch's graph, made in the order minitorch made them (so the sequence numbers keep their order), each
    ``ctx`` holding the minitorch node whose local derivative it computes, and one leaf tensor per parameter, whose
    ``AccumulateGrad`` (the learner's, made by their ``gradient_edge``) collects its gradient.

    Returns ``(root, leaves)``: the learner's tensor for ``loss`` (``backward(root)`` runs the learner's engine on
    their nodes) and ``[(parameter, its leaf), ...]``. The learner's tensors stand for the graph only: minitorch's
    forward computed the values, so each holds a 0-d stand-in (the root's has the loss's shape, 0-d, which is what
    the engine's first gradient is made from).
    """
    apply = getattr(Function.apply, "__func__", Function.apply)
    Tensor = apply.__globals__["Tensor"]  # the chapter's small tensor, in the namespace where Function was written
    dtype = loss.detach().numpy().dtype

    class Recorded(Function):
        """One of minitorch's ops as a node of the learner's graph: the op itself comes last among the arguments,
        a number to ``apply`` (as ``Pow``'s exponent), so it is kept on ``ctx`` and gets no edge."""

        @staticmethod
        def forward(ctx, *arguments):
            ctx.minitorch_node = arguments[-1]
            return np.zeros(())

        @staticmethod
        def backward(ctx, grad_output):
            gradient = minitorch.from_numpy(np.array(grad_output, dtype=dtype))
            sent = graph.call_node(ctx.minitorch_node, gradient)
            return (*(None if each is None else each.numpy() for each in sent), None)

    recorded, leaves = {}, {}
    for node in graph.forward_order(loss):
        if graph.is_leaf_node(node):
            leaves[node] = Tensor(np.zeros(()), requires_grad=True)
            continue
        arguments = []
        for next_node, output_number in node.next_functions:
            if output_number != 0:
                raise ValueError(f"{node.name()} sends a gradient to output {output_number} of {next_node.name()}: "
                                 "chapter 2's engine handles ops with one output (use slicing, not chunk)")  # fmt: skip
            if next_node is None:
                arguments.append(Tensor(np.zeros(())))  # an input that needs no gradient: apply records None
            else:
                arguments.append(leaves[next_node] if graph.is_leaf_node(next_node) else recorded[next_node])
        recorded[node] = Recorded.apply(*arguments, node)
    return recorded[loss.grad_fn], [(graph.leaf_tensor(node), leaf) for node, leaf in leaves.items()]


def _recorded_engine(Function, learners_backward):
    """``loss -> fills .grad``: the learner's Function records the graph, their engine runs it, and what their
    AccumulateGrad collected on each leaf is added into the parameter's ``.grad`` (as ``loss.backward()`` adds)."""

    def backward(loss):
        root, leaves = record_with(Function, loss)
        learners_backward(root)
        with minitorch.no_grad():
            for parameter, leaf in leaves:
                if leaf.grad is None:
                    continue
                gradient = minitorch.from_numpy(np.asarray(leaf.grad.data, dtype=parameter.detach().numpy().dtype))
                parameter.grad = gradient if parameter.grad is None else parameter.grad + gradient

    return backward


# -- chapter 2's engine on minitorch's graph ----------------------------------------------------------------------
class _NodeView:
    """A minitorch node as chapter 2's engine sees one: ``next_functions``, ``sequence_nr``, and a call that takes
    the gradient as an array and returns the gradients for ``next_functions`` as arrays (``()`` at a leaf)."""

    __slots__ = ("node", "leaf", "next_functions", "sequence_nr")

    def __call__(self, gradient):
        gradient = minitorch.from_numpy(np.array(gradient))  # a copy: the engine may keep adding into its array
        if self.leaf is not None:  # AccumulateGrad: add into .grad, nothing flows further
            with minitorch.no_grad():
                self.leaf.grad = gradient if self.leaf.grad is None else self.leaf.grad + gradient
            return ()
        return tuple(None if sent is None else sent.numpy() for sent in graph.call_node(self.node, gradient))


class _RootView:
    """The loss as chapter 2's engine sees a tensor: its ``grad_fn`` (a view) and its ``data`` (an array)."""

    __slots__ = ("grad_fn", "data")


def graph_views(loss) -> _RootView:
    """Views of every node of ``loss``'s graph, linked as minitorch's nodes are."""
    nodes = graph.nodes(loss.grad_fn)
    views = {}
    for node in nodes:
        view = _NodeView()
        view.node, view.leaf, view.sequence_nr = node, graph.leaf_tensor(node), graph.sequence_number(node)
        views[node] = view
    for node, view in views.items():
        links = []
        for next_node, output_number in node.next_functions:
            if output_number != 0:  # chapter 2's engine keeps one gradient per node: one output each
                raise ValueError(f"{node.name()} sends a gradient to output {output_number} of {next_node.name()}: "
                                 "chapter 2's engine handles ops with one output (use slicing, not chunk)")  # fmt: skip
            links.append((None if next_node is None else views[next_node], 0))
        view.next_functions = tuple(links)
    root = _RootView()
    root.grad_fn, root.data = views[loss.grad_fn], loss.detach().numpy()
    return root


def _engine(learners_backward):
    """``loss -> fills .grad`` with the learner's chapter 2 engine scheduling minitorch's nodes."""

    def backward(loss):
        learners_backward(graph_views(loss))

    return backward


def engine_backward(learners_backward, loss) -> None:
    """``loss.backward()``, scheduled by the learner's chapter 2 ``backward`` (see the module docstring)."""
    _engine(learners_backward)(loss)


# -- the model, on any kit -------------------------------------------------------------------------------------
def model_class(kit: Kit, num_heads: int):
    """The capstone's CharTransformer on ``kit``, made from the initial values ``init`` ({name: array}, the names of
    chapter 15's model's ``state_dict()``), so that every kit starts from the same numbers."""
    Module, Parameter = kit.Module, kit.Parameter

    def parameter(array):
        return Parameter(kit.tensor(np.array(array, dtype=np.float32)))

    class Linear(Module):
        def __init__(self, init, prefix):
            super().__init__()
            self.weight, self.bias = parameter(init[prefix + "weight"]), parameter(init[prefix + "bias"])

        def forward(self, x):
            return kit.linear(x, self.weight, self.bias)

    class LayerNorm(Module):
        def __init__(self, init, prefix):
            super().__init__()
            self.weight, self.bias = parameter(init[prefix + "weight"]), parameter(init[prefix + "bias"])

        def forward(self, x):
            return kit.layer_norm(x, self.weight, self.bias)

    class CausalSelfAttention(Module):
        """nn.MultiheadAttention's parameters; the queries, keys and values cut from one projection by slicing."""

        def __init__(self, init, prefix):
            super().__init__()
            self.in_proj_weight = parameter(init[prefix + "in_proj_weight"])
            self.in_proj_bias = parameter(init[prefix + "in_proj_bias"])
            self.out_proj = Linear(init, prefix + "out_proj.")

        def forward(self, x):
            batch, length, width = x.shape
            projected = kit.linear(x, self.in_proj_weight, self.in_proj_bias)

            def heads(first):  # (batch, length, width) features -> (batch, num_heads, length, head_width)
                features = projected[:, :, first : first + width]
                return features.reshape(batch, length, num_heads, width // num_heads).transpose(1, 2)

            attended = kit.attention(heads(0), heads(width), heads(2 * width), None, True)
            return self.out_proj(attended.transpose(1, 2).reshape(batch, length, width))

    class MLP(Module):
        def __init__(self, init, prefix):
            super().__init__()
            setattr(self, "0", Linear(init, prefix + "0."))  # nn.Sequential's names: 0, (1 the ReLU), 2
            setattr(self, "2", Linear(init, prefix + "2."))

        def forward(self, x):
            return getattr(self, "2")(kit.relu(getattr(self, "0")(x)))

    class CharTransformer(Module):
        def __init__(self, init):
            super().__init__()
            self.token_vectors = parameter(init["token_vectors"])
            self.position_vectors = parameter(init["position_vectors"])
            self.attention_norm = LayerNorm(init, "attention_norm.")
            self.attention = CausalSelfAttention(init, "attention.")
            self.mlp_norm = LayerNorm(init, "mlp_norm.")
            self.mlp = MLP(init, "mlp.")
            self.output_norm = LayerNorm(init, "output_norm.")
            self.head = Linear(init, "head.")

        def forward(self, ids):
            x = kit.embedding(self.token_vectors, ids) + self.position_vectors[: ids.shape[1]]
            x = x + self.attention(self.attention_norm(x))
            x = x + self.mlp(self.mlp_norm(x))
            return self.head(self.output_norm(x))

    return CharTransformer


# -- the data: windows cut by a strided tensor, batched by a DataLoader ------------------------------------------
class Windows:
    """A map-style dataset: item ``i`` is (inputs, targets) of the window starting at ``starts[i]``, as int64
    arrays; ``Strided`` (a strided-tensor class) cuts it as a view of the text's storage."""

    def __init__(self, ids, starts, block_size, Strided=None):
        self.ids = np.ascontiguousarray(np.asarray(ids, dtype=np.int64))
        self.starts = np.asarray(starts, dtype=np.int64).reshape(-1)
        self.block_size = int(block_size)
        self.text = None if Strided is None else Strided(self.ids, (self.ids.size,))

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, index):
        start = int(self.starts[index])
        if self.text is None:
            window = self.ids[start : start + self.block_size + 1]
        else:  # a view of the storage: one dimension, stride 1, offset the start; read through its positions
            view = self.text.as_strided((self.block_size + 1,), (1,), start)
            window = np.asarray(view.storage[np.asarray(view.positions(), dtype=np.int64)])
        return window[:-1].copy(), window[1:].copy()


def batch_starts(train_length: int, block_size: int, batch_size: int, steps: int, seed: int) -> np.ndarray:
    """(steps, batch_size) window starts, drawn as chapter 15's loop draws them (``minitorch.randint`` with a
    generator seeded with ``seed``): every kit, and the learner's graded loop, see the same batches."""
    generator = minitorch.Generator().manual_seed(int(seed))
    rows = [minitorch.randint(0, train_length - block_size, (batch_size,), generator=generator).numpy()
            for _ in range(steps)]  # fmt: skip
    return np.stack(rows)


# -- training and measuring --------------------------------------------------------------------------------------
@dataclass
class Run:
    kit: str
    losses: list[float]  # the training loss at every step
    seconds: float
    model: Any
    validation_loss: float = math.nan


def train(kit: Kit, init: dict, train_ids, starts: np.ndarray, *, num_heads: int, learning_rate: float) -> Run:
    """The capstone's training run on ``kit``: AdamW at ``learning_rate`` lowered linearly to 0 (chapter 15's
    schedule), one step per row of ``starts``, the cross-entropy at every position."""
    steps, batch_size = starts.shape
    block_size = int(np.asarray(init["position_vectors"]).shape[0])
    model = model_class(kit, num_heads)(init)
    optimizer = kit.AdamW(list(model.parameters()), lr=learning_rate)
    loader = kit.DataLoader(Windows(train_ids, starts, block_size, kit.Strided), batch_size=batch_size, shuffle=False)
    losses = []
    started = time.perf_counter()
    for step, (inputs, targets) in enumerate(loader):
        for group in optimizer.param_groups:  # LambdaLR(lambda step: 1 - step / steps), written out
            group["lr"] = learning_rate * (1 - step / steps)
        logits = model(inputs)
        loss = kit.loss(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
        optimizer.zero_grad()
        kit.backward(loss)
        optimizer.step()
        losses.append(loss.item())
    return Run(kit.name, losses, time.perf_counter() - started, model)


def window_loss(kit: Kit, model, ids, block_size: int) -> float:
    """The mean next-character cross-entropy over consecutive windows of ``ids`` (chapter 15's ``evaluate``)."""
    ids = np.asarray(ids, dtype=np.int64)
    count = (len(ids) - 1) // block_size
    windows = kit.tensor(ids[: count * block_size].reshape(count, block_size))
    following = kit.tensor(ids[1 : count * block_size + 1].reshape(count, block_size))
    with kit.no_grad():
        logits = model(windows)
        return float(kit.loss(logits.reshape(-1, logits.shape[-1]), following.reshape(-1)).item())


def trained_parameters(run: Run) -> tuple[np.ndarray, ...]:
    """The trained model's parameters as arrays, in the order of chapter 15's model's ``state_dict()``."""
    return tuple(np.array(value.detach().cpu().numpy()) for value in run.model.state_dict().values())


def side_by_side(runs: list[Run], every: int = 100, agree: float = 1e-3) -> str:
    """The runs' training losses in columns, every ``every`` steps, then their validation losses and times, and
    how long the first run's losses stay within ``agree`` of each other run's (float32 rounding differs between
    libraries, and training amplifies it)."""
    names = [run.kit for run in runs]
    lines = ["step  " + "".join(f"{name:>14}" for name in names)]
    steps = len(runs[0].losses)
    for step in sorted({*range(0, steps, every), steps - 1}):
        lines.append(f"{step + 1:>4}  " + "".join(f"{run.losses[step]:>14.4f}" for run in runs))
    lines.append("valid " + "".join(f"{run.validation_loss:>14.4f}" for run in runs))
    lines.append("secs  " + "".join(f"{run.seconds:>14.1f}" for run in runs))
    first = runs[0]
    for run in runs[1:]:
        gaps = np.abs(np.array(first.losses) - np.array(run.losses))
        apart = np.flatnonzero(gaps > agree)
        together = int(apart[0]) if apart.size else steps
        lines.append(f"{first.kit} against {run.kit}: the training losses agree within {agree:g} for the first "
                     f"{together} steps; the largest difference is {gaps.max():.1e}; the validation losses differ by "
                     f"{abs(first.validation_loss - run.validation_loss):.1e}")  # fmt: skip
    return "\n".join(lines)
