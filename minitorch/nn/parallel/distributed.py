"""``DistributedDataParallel`` (DDP): one process per device, gradients averaged during backward.

Where ``DataParallel`` is one process driving several devices, DDP runs one process per
device (``python -m minitorch.distributed.run --nproc-per-node N train.py``), each with its
own copy of the model and its own share of the data (``DistributedSampler``). Three things
keep the copies identical:

1. **At construction**, rank 0's parameters and buffers are broadcast to every rank.
2. **During backward**, each gradient is averaged over the ranks: ``grad = (g_0 + ... +
   g_{W-1}) / W``, which is the gradient of the mean loss over all the ranks' rows when
   every rank has the same number of rows. Then every rank's optimizer takes the same step.
3. **Every forward** (``broadcast_buffers=True``), rank 0's buffers (BatchNorm's running
   statistics) are broadcast again.

Buckets: overlapping communication with backward
------------------------------------------------
One all-reduce per parameter would pay the per-message cost many times; one for all of
them would wait for the very last gradient. DDP groups the parameters into *buckets* of
about ``bucket_cap_mb`` megabytes (by default 25, and the first one 1 MB, so communication
starts early), in reverse order of ``model.parameters()``: roughly the order backward
produces gradients in. A bucket closes once it holds at least the cap, so its last parameter
may take it past the cap (PyTorch's ``compute_bucket_assignment_by_size``). PyTorch starts
with one bucket of everything and re-forms the buckets after the first iteration, in the order
the gradients actually arrived; minitorch forms them once, in reverse registration order,
which is that order for a model that uses its parameters in the order it registers them.
A post-accumulate-grad hook on every parameter counts down its bucket; when a bucket's last
gradient has arrived, the hook copies the gradients into one flat buffer, divides by W and
launches a non-blocking all-reduce (``async_op=True``), while backward goes on computing the
earlier layers' gradients. Buckets are launched in index order on every rank (a collective
must be issued in the same order everywhere). At the end of backward, a callback queued
with ``autograd.engine.queue_callback`` waits for every bucket and copies the averaged
values back into each ``param.grad``.

``no_sync()``: gradient accumulation
-------------------------------------
Inside ``with ddp.no_sync():`` the hooks do nothing: gradients accumulate locally in
``.grad``. The first backward outside it averages the accumulated sums, so k micro-batches
cost one all-reduce instead of k.

Unused parameters
-----------------
A parameter that gets no gradient in an iteration keeps its bucket from filling. With
``find_unused_parameters=True``, DDP walks the autograd graph from the forward's outputs to
find them, counts them as ready (contributing zeros), and, after the all-reduce, leaves
``.grad`` untouched for the parameters no rank used. Without it, the next forward raises
PyTorch's error naming them.

    >>> # in a script started by the launcher:                         # doctest: +SKIP
    >>> dist.init_process_group("mpi")
    >>> model = DistributedDataParallel(nn.Linear(4, 2))
    >>> model(minitorch.randn(8, 4)).sum().backward()                   # grads averaged over ranks
    >>> list(model.state_dict())
    ['module.weight', 'module.bias']
"""

from __future__ import annotations

import contextlib
import itertools

from ... import _creation, _dtype, distributed as dist
from ..._tensor import Tensor
from ...autograd.engine import queue_callback
from ...autograd.function import AccumulateGrad
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_FIRST_BUCKET_BYTES = 1024 * 1024  # PyTorch's first bucket is small: communication starts after the last layer


class _Bucket:
    """Parameters whose gradients travel in one all-reduce, and the flat buffer they travel in."""

    def __init__(self, index: int, parameters: list):
        self.index = index
        self.parameters = parameters  # in the order they are laid out in the buffer
        self.pending = len(parameters)
        self.work = None
        self.buffer = None


def _compute_bucket_assignment_by_size(tensors, bucket_size_limits) -> list[list[int]]:
    """PyTorch's ``dist._compute_bucket_assignment_by_size`` for tensors in the order their gradients arrive:
    lists of positions in ``tensors``, one per bucket, in launch order.

    One open bucket per dtype; a tensor joins its dtype's bucket, which closes as soon as it holds at least
    its limit (so the tensor that crosses the limit still belongs to it). Each dtype's first bucket has the
    first limit, the next one the next limit, and so on, the last limit repeating. Buckets still open at the
    end follow, in the order they were opened.
    """
    closed, open_buckets, limit_index = [], {}, {}
    for position, tensor in enumerate(tensors):
        key = tensor.dtype
        members, size = open_buckets.get(key, ([], 0))
        members.append(position)
        size += tensor._data.nbytes
        which = limit_index.setdefault(key, 0)
        if size >= bucket_size_limits[which]:
            closed.append(members)
            open_buckets.pop(key, None)
            limit_index[key] = min(which + 1, len(bucket_size_limits) - 1)
        else:
            open_buckets[key] = (members, size)
    return closed + [members for members, _ in open_buckets.values()]


class DistributedDataParallel(Module):
    """Wrap ``module`` so that ``backward`` averages every gradient over the ranks of ``process_group``.

    Arguments as in PyTorch: ``device_ids`` (None for CPU modules; ``[local_rank]`` for a GPU
    module), ``broadcast_buffers``, ``process_group`` (default: the default group),
    ``bucket_cap_mb`` (default 25), ``find_unused_parameters``. The wrapped model is
    ``.module``; the state dict has its keys under ``"module."``. ``gradient_as_bucket_view``
    and ``static_graph`` are accepted and have no effect: in PyTorch they save memory and time,
    never change the results. ``output_device`` and ``dim`` are kept, as PyTorch keeps them.
    ``reduction_log`` records, per backward, the order of gradient hooks and bucket
    all-reduces (a minitorch addition, to watch the overlap).
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool = True, process_group=None, bucket_cap_mb: float | None = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False):
        super().__init__()
        if not dist.is_initialized() and process_group is None:
            raise ValueError(
                "Default process group has not been initialized, please make sure to call init_process_group.")
        parameters = [p for p in module.parameters() if p.requires_grad]
        if not parameters:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter that requires a "
                "gradient.")
        devices = {p.device for p in module.parameters()}
        if len(devices) > 1:
            raise ValueError(f"DistributedDataParallel's parameters must all be on one device, found {devices}")
        device = next(iter(devices))
        if device.type == "cpu" and device_ids:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-"
                f"device GPU modules or CPU modules, but got device_ids {device_ids}, output_device {output_device}, "
                "and module parameters {cpu}.")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.process_group = process_group
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        # The default settings start with a 1 MB bucket (communication starts early); a given cap applies to all.
        self.first_bucket_bytes_cap = _FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap
        self.world_size = dist.get_world_size(process_group)

        self._sync_module_states()
        self._parameters_in_order = parameters
        self._buckets = self._make_buckets(parameters)
        self._bucket_of = {}
        for bucket in self._buckets:
            for parameter in bucket.parameters:
                self._bucket_of[id(parameter)] = bucket
        self._next_bucket = 0  # buckets launch in index order on every rank
        self._in_backward = False
        self._ready = set()  # ids of the parameters whose hook has fired in this backward
        self._unused = []  # parameters the last forward did not use (find_unused_parameters)
        self._reduction_unfinished = None  # the parameters that got no gradient, when the last backward ended early
        self.reduction_log = []  # ("hook", parameter name) / ("all_reduce", bucket index), for teaching and tests
        self._names = {id(p): name for name, p in module.named_parameters()}
        self._hook_handles = [p.register_post_accumulate_grad_hook(self._gradient_ready) for p in parameters]

    # -- construction -------------------------------------------------------------------
    def _sync_module_states(self) -> None:
        """Every rank starts from rank 0's parameters and buffers (one broadcast per tensor)."""
        source = dist.get_global_rank(self.process_group, 0) if self.process_group is not None else 0
        with no_grad():
            for tensor in itertools.chain(self.module.parameters(), self.module.buffers()):
                dist.broadcast(tensor.detach(), src=source, group=self.process_group)

    def _make_buckets(self, parameters) -> list[_Bucket]:
        """The buckets, in launch order: PyTorch's assignment of the parameters in reverse registration order."""
        in_gradient_order = list(reversed(parameters))
        assignment = _compute_bucket_assignment_by_size(
            in_gradient_order, [self.first_bucket_bytes_cap, self.bucket_bytes_cap])
        return [_Bucket(index, [in_gradient_order[i] for i in bucket]) for index, bucket in enumerate(assignment)]

    # -- forward ------------------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        if self._reduction_unfinished is not None:
            self._raise_unfinished_reduction()
        if self.require_forward_param_sync and self.broadcast_buffers and self.world_size > 1:
            buffers = list(self.module.buffers())
            if buffers:
                source = dist.get_global_rank(self.process_group, 0) if self.process_group is not None else 0
                with no_grad():
                    for buffer in buffers:
                        dist.broadcast(buffer.detach(), src=source, group=self.process_group)
        output = self.module(*inputs, **kwargs)
        if self.find_unused_parameters and is_grad_enabled() and self.require_backward_grad_sync:
            self._unused = self._parameters_not_reached_from(output)
        return output

    def _parameters_not_reached_from(self, output) -> list:
        """The parameters whose ``AccumulateGrad`` node the output's graph does not reach."""
        stack = [t.grad_fn for t in _tensors_in(output) if t.grad_fn is not None]
        reached, seen = set(), set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, AccumulateGrad):
                reached.add(id(node.variable))
            for next_node, _ in node.next_functions:
                if next_node is not None:
                    stack.append(next_node)
        for t in _tensors_in(output):
            if t.grad_fn is None and t.requires_grad:
                reached.add(id(t))
        return [p for p in self._parameters_in_order if id(p) not in reached]

    @contextlib.contextmanager
    def no_sync(self):
        """Inside this block, backward only accumulates gradients locally; the next backward outside averages them."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    # -- backward: the hooks and the end-of-backward callback ---------------------------------
    def _gradient_ready(self, parameter) -> None:
        """Post-accumulate-grad hook: ``parameter.grad`` is final for this backward."""
        if not self.require_backward_grad_sync:
            return
        if not self._in_backward:
            self._start_backward()
        self.reduction_log.append(("hook", self._names.get(id(parameter), "?")))
        self._ready.add(id(parameter))
        bucket = self._bucket_of[id(parameter)]
        bucket.pending -= 1
        self._launch_ready_buckets()

    def _start_backward(self) -> None:
        self._in_backward = True
        self.reduction_log = []
        queue_callback(self._finish_backward)
        for bucket in self._buckets:
            bucket.pending, bucket.work = len(bucket.parameters), None
        self._next_bucket = 0
        self._ready = set()
        for parameter in self._unused:  # find_unused_parameters: they count as ready now
            self._bucket_of[id(parameter)].pending -= 1

    def _launch_ready_buckets(self) -> None:
        while self._next_bucket < len(self._buckets) and self._buckets[self._next_bucket].pending == 0:
            self._launch(self._buckets[self._next_bucket])
            self._next_bucket += 1

    def _launch(self, bucket: _Bucket) -> None:
        """Flatten the bucket's gradients, divide by the world size, start the all-reduce (non-blocking)."""
        parameters = bucket.parameters
        xp = parameters[0]._xp
        pieces = [p._grad._data.reshape(-1) if p._grad is not None else xp.zeros(p._data.size, p._data.dtype)
                  for p in parameters]
        bucket.buffer = Tensor._make(xp.concatenate(pieces), parameters[0].device)
        bucket.buffer._data /= self.world_size  # PyTorch divides before summing: the sum is then the average
        bucket.work = dist.all_reduce(bucket.buffer, group=self.process_group, async_op=True)
        self.reduction_log.append(("all_reduce", bucket.index))

    def _finish_backward(self) -> None:
        """Queued at the first hook; runs when backward has walked the whole graph."""
        self._in_backward = False
        if self._next_bucket < len(self._buckets):
            if not self.find_unused_parameters:
                # Some parameters got no gradient. PyTorch reports it at the next forward; so does this.
                self._reduction_unfinished = [p for p in self._parameters_in_order if id(p) not in self._ready]
                for bucket in self._buckets[: self._next_bucket]:
                    bucket.work.wait()
                return
            for bucket in self._buckets[self._next_bucket:]:
                self._launch(bucket)
            self._next_bucket = len(self._buckets)
        used_anywhere = self._used_on_some_rank() if self.find_unused_parameters else None
        for bucket in self._buckets:
            bucket.work.wait()
            offset = 0
            for parameter in bucket.parameters:
                size = parameter._data.size
                averaged = bucket.buffer._data[offset:offset + size].reshape(parameter._data.shape)
                offset += size
                if used_anywhere is not None and not used_anywhere[id(parameter)]:
                    continue  # no rank used it: its gradient stays as it was
                if parameter._grad is None:
                    parameter._grad = Tensor._make(averaged.copy(), parameter.device)
                else:
                    parameter._grad._data[...] = averaged
            bucket.buffer = bucket.work = None
        self._unused = []

    def _used_on_some_rank(self) -> dict:
        """One small all-reduce (MAX) of "did this rank use the parameter", as PyTorch's local_used_map."""
        unused = {id(p) for p in self._unused}
        used = _creation.tensor([0 if id(p) in unused else 1 for p in self._parameters_in_order], dtype=_dtype.int32)
        dist.all_reduce(used, op=dist.ReduceOp.MAX, group=self.process_group)
        return {id(p): bool(flag) for p, flag in zip(self._parameters_in_order, used.tolist())}

    def _raise_unfinished_reduction(self) -> None:
        names = [self._names.get(id(p), "?") for p in self._reduction_unfinished]
        position = {id(p): index for index, p in enumerate(self._parameters_in_order)}
        indices = [position[id(p)] for p in self._reduction_unfinished]
        self._reduction_unfinished = None
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable unused "
            "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
            "participate in calculating loss.\n"
            f"Parameter indices which did not receive grad for rank {dist.get_rank(self.process_group)}: "
            f"{' '.join(map(str, indices))}\nParameters which did not receive grad: {', '.join(names)}")


def _tensors_in(value):
    """Every tensor in a forward's output (a tensor, or tuples, lists and dicts of them)."""
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _tensors_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors_in(item)
