"""Chapter 3: devices and the GPU. Devices, moving tensors, what a copy costs, the backend idea, CPU vs GPU."""

from author import code, md, solution, tests, write

cells = [
    md(
        """
        # Chapter 3 · Devices and the GPU

        A tensor's numbers live somewhere: in your computer's main memory, next to the CPU, or in the memory of a
        graphics card (a GPU). That place is the tensor's **device**. This chapter is about devices: how to name
        them, how to move tensors between them, what moving costs, and when a GPU is worth it.

        By the end of this chapter you will be able to:

        * name devices (`minitorch.device('cuda')`, `'cuda:1'`, `'cpu'`) and ask what the machine has
          (`minitorch.cuda.is_available()`, `minitorch.cuda.device_count()`);
        * put tensors and models on a device (`device=` when creating, `.to()`, `.cpu()`) and write code that
          runs unchanged on the CPU and on a GPU;
        * say what moves in a copy, estimate what it costs, and measure it;
        * read the error you get when tensors on two devices meet, and fix it;
        * explain how one code path computes on both (NumPy on the CPU, CuPy on the GPU: `minitorch/_device.py`);
        * time the same operations on the CPU and on a GPU with `widgets.DeviceTimer`, and find where the GPU
          starts to win.

        You do not need a GPU. Cells that need one check with `minitorch.cuda.is_available()` and, without one,
        tell you what they would show. A "pretend GPU" (section 5) lets you try everything else on the CPU.
        """
    ),
    code(
        """
        import contextlib
        import inspect
        import time
        from pathlib import Path

        import matplotlib.pyplot as plt
        import numpy as np

        import minitorch
        import widgets
        from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)

        minitorch.manual_seed(0);
        """
    ),
    md(
        """
        ## 1. One device, one card, one memory

        A computer with a GPU has (at least) two separate memories:

        ```
        +----------------------------+                 +------------------------------+
        |  CPU          host memory  |    PCIe bus     |  GPU         device memory   |
        |  (a few fast  (RAM: tens   | <-------------> |  (thousands  (HBM or GDDR:   |
        |   cores)       of GB/s)    |  ~25-60 GB/s    |   of cores)   1-5 TB/s)      |
        +----------------------------+                 +------------------------------+
        ```

        Each GPU is a separate card with its own memory. A tensor lives in exactly **one** of these memories, and
        an operation computes where its inputs are: `a + b` on two GPU tensors runs on that GPU and leaves its
        result there. The GPU reads its own memory very fast (terabytes per second on a data-centre card), but
        anything that starts in host memory must first cross the bus, tens of times more slowly.

        A device is named by a **type** and an **index**:

        | name | means |
        |---|---|
        | `'cpu'` | the CPU and host memory (there is only one) |
        | `'cuda'` | the *current* GPU (GPU 0 unless you change it) |
        | `'cuda:1'` | the second GPU; `minitorch.device('cuda', 1)` says the same |
        """
    ),
    code(
        """
        cpu = minitorch.device("cpu")
        gpu = minitorch.device("cuda")
        second_gpu = minitorch.device("cuda:1")

        print(repr(cpu), repr(gpu), repr(second_gpu))
        print("type:", second_gpu.type, " index:", second_gpu.index, " as text:", str(second_gpu))
        print("same device, spelled two ways:", minitorch.device("cuda", 1) == second_gpu)
        """
    ),
    md(
        """
        Naming a device does not need the device: `minitorch.device('cuda:1')` is only a name. To learn what the
        machine really has, ask `minitorch.cuda`:
        """
    ),
    code(
        """
        print("GPU available:", minitorch.cuda.is_available())
        print("number of GPUs:", minitorch.cuda.device_count())
        if minitorch.cuda.is_available():
            for index in range(minitorch.cuda.device_count()):
                print(f"  cuda:{index} is {minitorch.cuda.get_device_name(index)}")
        else:
            print("No GPU here (or CuPy, which minitorch uses to talk to NVIDIA GPUs, is not installed).")
        """
    ),
    md(
        """
        The one line almost every PyTorch program starts with picks the GPU when there is one and the CPU
        otherwise. Everything after it is written in terms of `device`, never `'cuda'`, so the same program runs
        on a laptop and on a GPU server:
        """
    ),
    code(
        """
        device = minitorch.device("cuda" if minitorch.cuda.is_available() else "cpu")
        device
        """
    ),
    md(
        """
        ## 2. Putting tensors on a device

        Every tensor knows its device (`.device`). There are two ways to get a tensor onto a device:

        * **create it there**: every creation function takes `device=` (`minitorch.zeros(3, device=device)`),
          and `zeros_like(x)`, `x.new_ones(...)` put the new tensor on `x`'s device;
        * **copy it there**: `x.to(device)` returns a copy on `device`; `x.cpu()` is short for `x.to('cpu')`.

        Creating a tensor directly on the GPU is cheaper than making it on the CPU and copying it: nothing
        crosses the bus.
        """
    ),
    code(
        """
        x = minitorch.randn(2, 3)
        print("x is on", x.device)

        on_device = minitorch.zeros(2, 3, device=device)
        print("zeros(..., device=device) is on", on_device.device)
        print("zeros_like(x) is on", minitorch.zeros_like(x).device, "(the device of x)")

        moved = x.to(device)
        print("x.to(device) is on", moved.device, "; x itself stays on", x.device)
        """
    ),
    md(
        """
        `.to()` is lazy in one useful way: when the tensor is already where (and what) you ask, it returns **the
        same tensor**, not a copy. So `x.to(device)` costs nothing when there is nothing to do, and you can
        sprinkle it in code that must work everywhere. Pass `copy=True` to force a copy.

        `.to()` also changes the dtype (`x.to(minitorch.float64)`), both at once (`x.to(device, minitorch.float16)`),
        or copies another tensor's device and dtype (`x.to(other)`).
        """
    ),
    code(
        """
        print("x.to('cpu') is x:", x.to("cpu") is x)
        print("x.cpu() is x:", x.cpu() is x)
        print("x.to('cpu', copy=True) is x:", x.to("cpu", copy=True) is x)
        print("x.to(float64):", x.to(minitorch.float64).dtype)
        print("x.to(other) takes other's dtype:", x.to(minitorch.zeros(1, dtype=minitorch.float16)).dtype)
        """
    ),
    md(
        """
        **Modules are different.** `model.to(device)` moves every parameter and buffer of the model *in place* and
        returns the model itself (a tensor's `.to` returns a new tensor and leaves the old one alone). So
        `model.to(device)` alone is enough, while for a tensor you must keep the result: `x = x.to(device)`.
        """
    ),
    code(
        """
        model = minitorch.nn.Linear(3, 2)
        returned = model.to(device)
        print("model.to(device) returns the same model:", returned is model)
        print("its weight is now on", model.weight.device)
        """
    ),
    md(
        """
        Without a GPU, asking for one fails at once, with a message that says why:
        """
    ),
    code(
        """
        try:
            x.to("cuda")
            print("moved to", x.to("cuda").device)
        except RuntimeError as error:
            print("RuntimeError:", error)
        """
    ),
    md(
        """
        ## 3. The backend idea: one code path, two array libraries

        How can the same `a + b` run on a CPU and on a GPU? minitorch stores a tensor's numbers in an **array**:
        a NumPy array on the CPU, a CuPy array on an NVIDIA GPU. CuPy copies NumPy's interface function for
        function (`cupy.exp`, `cupy.matmul`, ...), but each function launches a GPU program (a *kernel*) instead
        of running on the CPU.

        Each device type has a **backend** (`minitorch/_device.py`): an object that says which array module
        computes there, how many devices of that type exist, and how to copy arrays onto and off them.
        """
    ),
    code(
        """
        from minitorch import _device

        print(inspect.getsource(_device.Backend)[:1500])
        """
    ),
    md(
        """
        The operations never import NumPy or CuPy for computing. They ask the array they were given for its
        module (`array_module(x)` in `minitorch/ops/_util.py`) and call that. Here is `exp`, from
        `minitorch/ops/pointwise/exponential.py`: the same three lines serve both devices.
        """
    ),
    code(
        """
        from minitorch.ops import pointwise

        print(inspect.getsource(pointwise.Exp))
        print("the array module of a CPU tensor:", x._xp.__name__)   # _xp: a private peek, do not rely on it
        print("the array inside:", type(x._data))
        """
    ),
    md(
        """
        This design (borrowed from the Chainer library) keeps minitorch short: one implementation per operation,
        and the device decides which library runs it. The copy between devices is an operation too:
        `ToCopy` in `minitorch/ops/conversion.py` asks the source backend for a host array (`to_host`) and the
        target backend to put it on its device (`to_device`). Because it is an autograd op, gradients flow back
        through `.to()` to the device the tensor came from. PyTorch does the same with C++ and CUDA kernels
        instead of NumPy and CuPy, and a dispatcher that picks the kernel from the tensor's device.

        ## 4. Mixing devices is an error

        An operation computes where its inputs are. If they are on two different devices, which device should
        run it? Rather than guess (and silently copy gigabytes over the bus), PyTorch refuses, and minitorch
        does too, naming both devices. (One exception, in both: a 0-dimensional CPU tensor, which is just a number,
        may join a GPU operation.) You will meet this message often:

        `Expected all tensors to be on the same device, but found at least two devices, cpu and cuda:0!`

        The fix is always to move one operand, usually the one you forgot: a new tensor made without
        `device=`, a batch that was not moved, or a model that was not moved.

        ## 5. A pretend GPU

        To try devices without a GPU, we can plug our own backend into minitorch: a `cuda` device type whose
        arrays are NumPy arrays in host memory. Everything above the backend (tensors, ops, autograd, device
        checks) cannot tell the difference, which is exactly the point of the backend idea.
        (`register_backend` is how minitorch's own tests check the GPU code paths on machines without a GPU.)
        On a machine with a real GPU, the cell below uses the real one instead.
        """
    ),
    code(
        """
        class PretendGPU(_device.NumpyBackend):
            \"\"\"A 'cuda' device type whose memory is host memory: NumPy computes, 'transfers' copy.\"\"\"

            def __init__(self):
                super().__init__("cuda")

            def device_count(self):
                return 1

            def to_device(self, array, index, blocking=False):   # nothing runs ahead: always "blocking"
                return np.array(array, copy=True)

            def to_host(self, array, non_blocking=False):
                return np.array(array, copy=True)

            def device_name(self, index):
                return "a pretend GPU (NumPy underneath)"


        @contextlib.contextmanager
        def some_gpu():
            \"\"\"Inside this block, 'cuda' is the real GPU if there is one, else a pretend one.\"\"\"
            if minitorch.cuda.is_available():
                yield
                return
            previous = _device.register_backend("cuda", PretendGPU())
            try:
                yield
            finally:
                _device.register_backend("cuda", previous)   # put the real (absent) GPU back
        """
    ),
    code(
        """
        with some_gpu():
            print("GPU available:", minitorch.cuda.is_available(), "-", minitorch.cuda.get_device_name(0))
            a = minitorch.tensor([1.0, 2.0, 3.0])
            b = a.to("cuda")
            print("a:", a)
            print("b:", b)                       # the device is part of the printout
            print("b * 2 is on", (b * 2).device)   # results stay where the inputs are

            try:
                a + b
            except RuntimeError as error:
                print("\\na + b -> RuntimeError:", error)

            print("\\nfixed: a.to(b.device) + b =", a.to(b.device) + b)
            print("or back on the CPU: a + b.cpu() =", a + b.cpu())
        """
    ),
    md(
        """
        The same check guards every operation, layers included: a model on the GPU fed a batch on the CPU fails the
        same way. And since `.to()` is differentiable, a gradient computed on the GPU comes back to a leaf that
        lives on the CPU, on the CPU:
        """
    ),
    code(
        """
        with some_gpu():
            layer = minitorch.nn.Linear(3, 2).to("cuda")
            batch = minitorch.randn(4, 3)
            try:
                layer(batch)
            except RuntimeError as error:
                print("layer(batch) -> RuntimeError:", error)
            print("layer(batch.to('cuda')) is on", layer(batch.to("cuda")).device)

            leaf = minitorch.randn(3, requires_grad=True)        # on the CPU
            loss = (leaf.to("cuda") ** 2).sum()                   # computed on the GPU
            loss.backward()
            print("\\nloss is on", loss.device, "; leaf.grad is on", leaf.grad.device)
            print("leaf.grad == 2 * leaf:", bool(minitorch.allclose(leaf.grad, 2 * leaf.detach())))
        """
    ),
    md(
        """
        Real programs move whole batches: often a tuple `(images, labels)`, sometimes a dictionary of tensors.
        A small helper walks the structure and moves every tensor in it (PyTorch Lightning and Hugging Face
        each have one like it):
        """
    ),
    code(
        """
        def move_to(batch, device):
            \"\"\"Every tensor inside batch (a tensor, or lists, tuples and dicts of them) moved to device.\"\"\"
            if isinstance(batch, minitorch.Tensor):
                return batch.to(device)
            if isinstance(batch, dict):
                return {key: move_to(value, device) for key, value in batch.items()}
            if isinstance(batch, (list, tuple)):
                return type(batch)(move_to(value, device) for value in batch)
            return batch   # numbers, strings, None: nothing to move


        with some_gpu():
            batch = {"images": minitorch.randn(2, 1, 4, 4), "labels": minitorch.tensor([3, 7]), "name": "demo"}
            moved = move_to(batch, "cuda")
            for key, value in moved.items():
                print(f"{key:>7}: {value.device if isinstance(value, minitorch.Tensor) else repr(value)}")
        """
    ),
    md(
        """
        ## 6. What moves, and what it costs

        A copy to a GPU moves the tensor's **bytes**: `numel()` numbers of `element_size()` bytes each
        (4 for `float32`, 8 for `int64`, 2 for `float16`). Nothing else crosses: not the graph, not the Python
        object. A batch of 64 RGB images of 224 x 224 pixels in `float32` is

        64 x 3 x 224 x 224 x 4 bytes = 38.5 MB,

        and at about 25 GB/s (PCIe 4.0, in practice) that is about 1.5 ms each way. A copy also has a fixed cost
        (a few microseconds to start it), so many small copies cost more than one big one.

        Moves you do not write also cost a copy, and make the CPU wait for the GPU to finish its queued work:
        `.item()`, `.tolist()`, `print(x)` and `.cpu().numpy()` on a GPU tensor. One `loss.item()` per step is
        fine; one per element is not.
        """
    ),
    code(
        """
        images = minitorch.zeros(64, 3, 224, 224)
        print("numel:", images.numel(), " element_size:", images.element_size(), "bytes")
        print(f"bytes to move: {images.numel() * images.element_size() / 1e6:.1f} MB")
        print(f"at 25 GB/s: {images.numel() * images.element_size() / 25e9 * 1e3:.2f} ms")
        """
    ),
    md(
        """
        Let us measure, with the tool PyTorch's own tutorials use: `torch.utils.benchmark.Timer`, here
        `minitorch.utils.benchmark.Timer` (source: `minitorch/utils/benchmark/timer.py`). You give it a statement
        as a string and the names it uses (`globals=`); `blocked_autorange(min_run_time=...)` warms up, picks a
        *block* of calls long enough that reading the clock costs nothing next to it, and repeats blocks for at
        least `min_run_time` seconds. Printing the result shows the median time per call, the spread of the
        blocks (IQR, the middle half) and how many blocks of how many calls it timed.

        With a GPU, the cell below times host-to-device copies (`.to('cuda')`) of growing size. A GPU works
        **asynchronously**: a call queues work and returns at once, so a clock read right after it measures
        almost nothing. `minitorch.cuda.synchronize()` waits until the queue is empty; the Timer's clock
        (`minitorch.utils.benchmark.timer`) calls it before every reading, so the waiting is inside what is timed.

        Without a GPU there is no bus to cross, so the cell times a copy within host memory (`.to('cpu',
        copy=True)`) instead: the same shape of curve (a fixed cost, then a bandwidth limit), at RAM speed
        rather than bus speed. A copy to a real GPU has a larger fixed cost (around ten microseconds) and the
        bus's bandwidth: roughly 10 to 50 GB/s, depending on the PCIe generation and on whether the host memory
        is *pinned* (see below).
        """
    ),
    code(
        """
        from minitorch.utils.benchmark import Compare, Timer

        on_gpu = minitorch.cuda.is_available()
        what = "host -> GPU copy" if on_gpu else "host -> host copy (no GPU here)"
        copy_statement = "host.to('cuda')" if on_gpu else "host.to('cpu', copy=True)"
        pieces = 16                                          # for the comparison further down


        def time_copy(host, statement=copy_statement, description="one copy"):
            \"\"\"The Timer's measurement of copying host: to the GPU if there is one, else within host memory.\"\"\"
            nbytes = host.numel() * host.element_size()
            names = {"host": host, "pieces": list(host.chunk(pieces))}  # what the statement may use
            timer = Timer(statement, globals=names, label=what, sub_label=f"{nbytes:,} bytes",
                          description=description)
            return timer.blocked_autorange(min_run_time=0.05)


        sizes = [2**k for k in range(8, 23, 2)]              # 256 numbers (1 KB) to 4 M numbers (16 MB)
        hosts = [minitorch.randn(size) for size in sizes]
        measurements = [time_copy(host) for host in hosts]
        nbytes = np.array([host.numel() * host.element_size() for host in hosts])
        seconds = np.array([m.median for m in measurements])
        print(measurements[-1])                              # what blocked_autorange measured for the largest copy

        figure, (left, right) = plt.subplots(1, 2, figsize=(10, 3.5))
        left.loglog(nbytes, seconds * 1e6, "o-")
        left.set(xlabel="bytes copied", ylabel="microseconds per copy (median)", title=what)
        right.semilogx(nbytes, nbytes / seconds / 1e9, "o-")
        right.set(xlabel="bytes copied", ylabel="GB/s", title="achieved bandwidth")
        figure.tight_layout()
        plt.show()
        print(f"largest copy: {nbytes[-1] / 1e6:.0f} MB in {seconds[-1] * 1e3:.2f} ms "
              f"= {nbytes[-1] / seconds[-1] / 1e9:.1f} GB/s")
        """
    ),
    md(
        """
        Read the left plot from the left: small copies all take about the same time (the fixed cost dominates),
        and only large copies approach the bandwidth limit (the right plot rises, then levels off; within host
        memory it may dip again for the largest copies, which no longer fit in the processor's caches). That is
        the **latency +
        bandwidth** model of a copy, `time = latency + bytes / bandwidth`.

        A fixed cost per copy means that many small copies cost more than one big one of the same bytes.
        `Compare` sets measurements side by side, as in PyTorch's benchmark recipe: rows are the `sub_label`s
        (here two sizes), columns the `description`s (one copy of the whole tensor, or the same numbers as 16
        pieces, each copied on its own), and every table is one `label`.
        """
    ),
    code(
        """
        piecewise = f"[{copy_statement.replace('host', 'piece')} for piece in pieces]"
        side_by_side = []
        for host in (hosts[2], hosts[-1]):                   # 4,096 numbers (16 KB) and 4 M numbers (16 MB)
            side_by_side.append(time_copy(host))
            side_by_side.append(time_copy(host, piecewise, f"{pieces} copies of 1/{pieces}"))
        Compare(side_by_side).print()
        for one, many in zip(side_by_side[::2], side_by_side[1::2]):
            print(f"{one.task_spec.sub_label}: {pieces} small copies took {many.median / one.median:.1f} times "
                  f"as long as one copy of the same bytes")
        """
    ),
    md(
        """
        Read the last two lines. For the small tensor the ratio is the price of 16 fixed costs (and a short Python
        loop) instead of one: near 16 or above, the fixed cost is nearly all of a small copy. For the large tensor
        the bytes dominate, so the ratio is near 1; within host memory it can even fall below 1, because a piece
        of a sixteenth fits the processor's caches where the whole tensor does not. Batch your small transfers;
        large ones gain little from it.

        How far to trust a figure: the printed measurement above gives the IQR, and a `WARNING` under it when the
        middle half of the blocks spreads over more than 10% of the median (a busy, shared machine does that).
        Then run the cell again, or give `blocked_autorange` a longer `min_run_time`.

        On a real GPU, copies from ordinary ("pageable") host memory are slower than from *pinned* memory, which
        the GPU can read directly; PyTorch's `DataLoader(pin_memory=True)` and `.to(device, non_blocking=True)`
        use that to overlap copying the next batch with computing on this one.

        ## 7. Timing GPU work

        Because GPU calls only queue work, timing them needs care. The rules, which `widgets.DeviceTimer` follows
        by measuring with the benchmark `Timer`:

        1. make the inputs and move them to the device **before** starting the clock (time the copy separately);
        2. time the **first** call on its own: on a GPU it compiles or loads kernels and sets up memory pools;
        3. warm up, then time many calls and take the **median** (`Timer.blocked_autorange` does both, in blocks
           of calls);
        4. call `minitorch.cuda.synchronize()` before each clock read (the Timer's clock does), or use
           `minitorch.cuda.Event`, which timestamps inside the GPU's queue.

        With a GPU, the next cell shows rule 4 at work: the same matrix product "timed" without synchronizing
        and with it.
        """
    ),
    code(
        """
        if minitorch.cuda.is_available():
            a = minitorch.randn(2048, 2048, device="cuda")
            b = minitorch.randn(2048, 2048, device="cuda")
            a @ b
            minitorch.cuda.synchronize()                   # warm-up done

            start = time.perf_counter()
            a @ b                                          # only queued
            queued = time.perf_counter() - start
            minitorch.cuda.synchronize()

            start = time.perf_counter()
            a @ b
            minitorch.cuda.synchronize()                   # waited until it finished
            finished = time.perf_counter() - start

            begin, end = minitorch.cuda.Event(enable_timing=True), minitorch.cuda.Event(enable_timing=True)
            begin.record()
            a @ b
            end.record()
            end.synchronize()
            print(f"without synchronize: {queued * 1e3:.3f} ms (only the time to queue the work)")
            print(f"with synchronize:    {finished * 1e3:.3f} ms")
            print(f"with cuda.Event:     {begin.elapsed_time(end):.3f} ms")
        else:
            print("No GPU: on one, 'a @ b' for 2048 x 2048 matrices returns after a few microseconds (the work is only")
            print("queued); with minitorch.cuda.synchronize() before reading the clock, it takes about a millisecond")
            print("or less on a recent card. Forgetting to synchronize makes a GPU look impossibly fast.")
        """
    ),
    md(
        """
        ### Your kernel from chapter 1, on the device

        Chapter 1's build-it, the fused bias + GELU `ElementwiseKernel`, is a piece of your library
        (`use("bias_gelu_kernel")`: yours if it passes chapter 1's checks, else minitorch's). With a GPU, the cell
        below runs it on a layer's activations there, next to minitorch's two operations `F.gelu(x + bias)`. Without
        one, the kernel has nothing to run on: it was built and checked in chapter 1 (on the stand-in), and it is
        used only on a GPU.
        """
    ),
    code(
        """
        from grading.library import use

        if minitorch.cuda.is_available():
            import cupy

            bias_gelu = use("bias_gelu_kernel")(cupy)
            activations, bias = minitorch.randn(4096, 1024, device="cuda"), minitorch.randn(1024, device="cuda")
            fused = bias_gelu(cupy.asarray(activations.cpu().numpy()), cupy.asarray(bias.cpu().numpy()))
            unfused = minitorch.nn.functional.gelu(activations + bias, approximate="tanh").cpu().numpy()
            print(f"bias_gelu_kernel on {activations.device}, against F.gelu(x + bias): largest difference "
                  f"{float(abs(cupy.asnumpy(fused) - unfused).max()):.1e}")
        else:
            print("bias_gelu_kernel (chapter 1): built and checked there; used only on a GPU, and there is none here")
        """
    ),
    md(
        """
        ## 8. CPU against GPU: where is the crossover?

        A GPU is a very wide calculator far away: every call pays a fixed cost (launching a kernel, plus
        minitorch's Python overhead, together tens of microseconds) before thousands of cores start at once.
        On small tensors the fixed cost dominates and the CPU wins; on large ones the GPU's width and memory
        bandwidth win by a wide margin. The size where the lines cross is the **crossover**.

        `widgets.DeviceTimer` sweeps operations over sizes on every device it finds (source:
        `widgets/timing.py`): `matmul` (`n x n` matrices, `2 n^3` floating-point operations), `elementwise`
        (a chain of five pointwise ops on `n` numbers), `conv2d` and `mlp_step` (one training step). Each point is
        one `Timer(...).blocked_autorange(min_run_time=seconds)`, whose clock waits for the device. It plots
        seconds per call and the GPU's speed-up, and tabulates the achieved GFLOP/s (billions of floating-point
        operations per second).

        Here we run a small, fast sweep. Without a GPU it shows the CPU curves and says so. A sweep recorded on a
        GPU machine can be overlaid (dashed lines): record one there with

            python -m widgets.timing --save gpu_timings.json

        and put `gpu_timings.json` next to this notebook.
        """
    ),
    code(
        """
        recorded = Path("gpu_timings.json")
        timer = widgets.DeviceTimer(
            operations=["matmul", "elementwise"],
            sizes={"matmul": [32, 128, 512], "elementwise": [1_000, 100_000, 1_000_000]},
            seconds=0.05,                                      # time spent repeating each point
            reference=recorded if recorded.exists() else None,
        )
        timer.run(progress=False)
        for message in timer.messages():
            print(message)
        timer
        """
    ),
    code(
        """
        for m in timer.measurements:
            print(f"{m.operation:>11} on {m.device:<6} n={m.size:>9,}: {m.median * 1e6:10.1f} µs per call, "
                  f"{m.gflops:7.2f} GFLOP/s")

        def cpu_rates(operation):
            return {m.size: m.gflops for m in timer.measurements if m.operation == operation and m.device == "cpu"}

        matmul_rates, elementwise_rates = cpu_rates("matmul"), cpu_rates("elementwise")
        sizes_seen = sorted(matmul_rates)
        print("\\nthis run, the CPU's matrix product:",
              ", ".join(f"n = {n}: {matmul_rates[n]:.1f} GFLOP/s" for n in sizes_seen))
        fastest = max(matmul_rates, key=matmul_rates.get)
        smallest, largest = sizes_seen[0], sizes_seen[-1]   # the largest against the smallest, whichever was fastest
        print(f"  n = {largest}: {matmul_rates[largest] / matmul_rates[smallest]:.1f} times the rate "
              f"at n = {smallest}; fastest at n = {fastest}; the rate grows at every step of n: "
              f"{all(matmul_rates[a] < matmul_rates[b] for a, b in zip(sizes_seen, sizes_seen[1:]))}")
        print(f"  the best elementwise rate ({max(elementwise_rates.values()):.2f} GFLOP/s) is "
              f"{max(elementwise_rates.values()) / matmul_rates[fastest]:.3f} times the best matrix-product rate")
        """
    ),
    md(
        """
        What to look for in the numbers this run printed (they change from machine to machine and from run to run):

        * **The smallest matrix product against the others.** At `n = 32` a product is about 65,000 floating-point
          operations, a few microseconds of arithmetic, while every call also pays a fixed cost in Python and NumPy.
          Compare its rate with the larger sizes' (the "times the rate" figure): the more that ratio exceeds 1, the
          more of the small call was overhead.
        * **Whether the rate keeps growing.** The printout says whether the rate grew at every step of `n`. It need
          not: at `n = 512` three matrices of 1 MB each no longer fit in the fastest caches, and the machine's BLAS,
          its number of threads and whatever else runs on it (a shared machine's neighbours) all move the figure.
          Quote a rate with its size and machine, never as "the CPU's speed".
        * **Elementwise against matrix product.** The elementwise chain does five operations per number and reads
          and writes memory for each, so memory bandwidth limits it, not arithmetic: read its rate as a fraction of
          the matrix product's (the last line). A GPU's memory is tens of times faster than a CPU's, which is why it
          also wins on such chains, once `n` is large.
        * On a GPU machine the speed-up plot crosses 1 at some size; below the crossover, keep small work on the CPU
          or batch it into bigger operations.

        ## 9. Exercises

        Three exercises on code that runs unchanged on any device. The checks run your code on the CPU **and** on a
        second device: the GPU if the machine has one, else a pretend GPU like the one of section 5
        (`grading/devices.py` has the one the checks use), so code that only works on the CPU shows up on a laptop.

        ### Exercise 1 · a column of ones, on the right device

        A linear model `y = X w + b` can fold its bias into the weights by adding a column of ones to `X`. Write
        `add_bias_column(x)`: `x` has shape `(n, d)`; return shape `(n, d + 1)`, `x` with a column of ones
        appended on the right. The new ones must be created on **`x`'s device** and with **`x`'s dtype**, so the
        function works for a float16 tensor on a GPU as well as a float64 one on the CPU. (`minitorch.cat` joins
        tensors along a dimension.)
        """
    ),
    solution(
        '''
        def add_bias_column(x):
            """x (n, d) -> (n, d + 1): x followed by a column of ones, on x's device and with x's dtype."""
            ### BEGIN SOLUTION
            ones = minitorch.ones(x.shape[0], 1, dtype=x.dtype, device=x.device)
            return minitorch.cat([x, ones], dim=1)
            ### END SOLUTION
        ''',
        "add_bias_column",
    ),
    tests(
        """
        check("ch03.add_bias_column", add_bias_column)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch03.add_bias_column", add_bias_column, [
            (randn(1, 1, seed=310),),
            (randn(7, 2, seed=311, dtype="float64"),),
            (randn(3, 6, seed=312, dtype="float16"),),
        ])
        ### END HIDDEN TESTS
        """,
        "test_add_bias_column",
    ),
    md(
        """
        ### Exercise 2 · build it: a device-generic causal softmax

        Section 3 showed how minitorch's ops are written once: they ask their input for its array module and never
        name NumPy or CuPy. Your own functions can do the same one level up: compute with tensor operations (which
        run where their inputs are) and make every new tensor with `device=x.device` (and `dtype=` where it
        matters). Then one function serves every device.

        Write `causal_softmax(scores)`, the attention weights of a language model (chapter 9): `scores` has shape
        `(..., T, T)`; row `i` may only look at columns `0..i` (a token does not see the future). Return, for each
        row, the softmax over the visible columns, with exactly 0 for the hidden ones:

        $$p_{ij} = \\frac{e^{s_{ij} - m_i}}{\\sum_{k \\le i} e^{s_{ik} - m_i}} \\text{ for } j \\le i, \\quad p_{ij} = 0
        \\text{ for } j > i, \\qquad m_i = \\max_{k \\le i} s_{ik}.$$

        * **Numerically stable**: subtracting the row's largest visible score $m_i$ changes nothing mathematically,
          and keeps every exponential at most 1; without it, scores of a few hundred overflow `exp` to `inf` in
          float32 (and scores above about 11 in float16), and `inf / inf` is `nan`.
        * **Device-generic**: the mask you build lives on `scores.device`; the result stays on the scores' device
          and has their dtype.
        * Tensor operations only: no `.numpy()` (it fails on a GPU tensor), and not minitorch's own `softmax` (the
          grader switches it off; you are writing it).

        `causal_softmax_on_two_devices` is given: it runs your function on the scores on the CPU and again on the
        second device, and reports both results and where they ended up. `hint("ch03.causal_softmax")` gives hints
        step by step.
        """
    ),
    solution(
        '''
        def causal_softmax(scores):
            """Softmax over the last dim, row i seeing columns 0..i only; on scores' device, in scores' dtype."""
            ### BEGIN SOLUTION
            size = scores.shape[-1]
            positions = minitorch.arange(size, device=scores.device)
            future = positions[None, :] > positions[:, None]
            masked = scores.masked_fill(future, float("-inf"))
            shifted = masked - masked.amax(dim=-1, keepdim=True)
            exponentials = shifted.exp()
            return exponentials / exponentials.sum(dim=-1, keepdim=True)
            ### END SOLUTION


        # The check calls this (already written): your function on the CPU, then on a second device.
        from grading.devices import causal_softmax_report  # noqa: E402 (given code, after the learner's function)


        def causal_softmax_on_two_devices(scores):
            """(result on the CPU, result on the second device copied back, 1 where each stayed on its device)."""
            return causal_softmax_report(causal_softmax, scores)
        ''',
        "causal_softmax",
    ),
    tests(
        """
        check("ch03.causal_softmax", causal_softmax_on_two_devices)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch03.causal_softmax", causal_softmax_on_two_devices, [
            (randn(1, 1, seed=3300),),
            (randn(7, 7, seed=3301, scale=300.0),),
            (randn(2, 2, 3, 3, seed=3302, dtype="float64", scale=1e3),),
            (randn(4, 8, 8, seed=3303, dtype="float16", scale=8.0),),
        ])
        ### END HIDDEN TESTS
        """,
        "test_causal_softmax",
        points=2,
    ),
    md(
        """
        The same function, written once, on both devices (the pretend GPU of section 5 if there is no real one):
        """
    ),
    code(
        """
        scores = minitorch.randn(4, 4) * 3
        try:
            with some_gpu():
                on_gpu = causal_softmax(scores.to("cuda"))
                print("on", on_gpu.device, "\\n", on_gpu)
                print("rows sum to 1:", on_gpu.sum(dim=-1).cpu().tolist())
                print("same as on the CPU:", bool(minitorch.allclose(on_gpu.cpu(), causal_softmax(scores))))
        except NotImplementedError:
            print("causal_softmax is not written yet: finish exercise 2, then run this cell again.")
        """
    ),
    md(
        """
        ### Exercise 3 · build it: `module_to`, what `model.to(device)` does

        Section 2 said that `model.to(device)` moves every parameter **and buffer**, in place, and returns the model.
        Write it: `module_to(module, device)`. The rules are PyTorch's:

        * every module inside `module`, at any depth, is visited (a `Sequential` holds its layers as child modules);
        * a **parameter** stays the **same object**: an optimizer made before the move holds references to the
          parameters, and must still hold the model's parameters after it. So change what the parameter holds
          (`p.data`), not which object the module holds; its `requires_grad` stays as it was (a frozen layer stays
          frozen). Its gradient `p.grad`, if it has one, moves too;
        * a **buffer** (`BatchNorm1d`'s `running_mean`, `running_var`, `num_batches_tracked`: state that is not
          trained) is a plain tensor: the module may simply hold the moved copy;
        * `module_to` returns `module`.

        A module keeps its own parameters in the dictionary `module._parameters` and its buffers in `module._buffers`
        (name to tensor; an entry may be `None`, e.g. a `Linear(..., bias=False)`'s bias); `module.children()` and
        `module.modules()` give the modules inside. While your function runs, the check switches `nn.Module.to`
        itself off.

        `module_to_report_of_my_function` is given: it builds a nested model with BatchNorm layers (one training
        step done, so there are gradients and updated buffers, and one frozen bias), moves it to the second device
        with your function, reports where every tensor is, runs the model there, and moves it back.
        `hint("ch03.module_to")` gives hints step by step.
        """
    ),
    solution(
        '''
        def module_to(module, device):
            """Move every parameter (in place, same objects), gradient and buffer of module, at any depth."""
            ### BEGIN SOLUTION
            for submodule in module.modules():
                for parameter in submodule._parameters.values():
                    if parameter is None:
                        continue
                    with minitorch.no_grad():
                        parameter.data = parameter.data.to(device)
                        if parameter.grad is not None:
                            parameter.grad = parameter.grad.to(device)
                for name, buffer in submodule._buffers.items():
                    if buffer is not None:
                        submodule._buffers[name] = buffer.to(device)
            return module
            ### END SOLUTION


        # The check calls this (already written): the model of grading/devices.py, moved there and back.
        from grading.devices import module_to_report  # noqa: E402 (given code, after the learner's function)


        def module_to_report_of_my_function(sizes, values):
            """Build the check's nested model from sizes and values, move it with your module_to, report."""
            return module_to_report(module_to, sizes, values)
        ''',
        "module_to",
    ),
    tests(
        """
        check("ch03.module_to", module_to_report_of_my_function)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch03.module_to", module_to_report_of_my_function, [
            (np.array([2, 5, 3, 2]), randn(90, seed=3400)),
            (np.array([1, 1]), randn(7, seed=3401)),
            (np.array([6, 4, 4, 4, 3]), randn(200, seed=3402)),
        ])
        ### END HIDDEN TESTS
        """,
        "test_module_to",
        points=2,
    ),
    md(
        """
        Your `module_to` next to `model.to`, on the pretend GPU, with an optimizer made before the move:
        """
    ),
    code(
        """
        try:
            with some_gpu():
                minitorch.manual_seed(0)
                nn = minitorch.nn
                network = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Sequential(nn.ReLU(), nn.Linear(4, 2)))
                optimizer = minitorch.optim.SGD(network.parameters(), lr=0.1)
                weight_before = network[0].weight
                module_to(network, "cuda")
                print("parameters:", sorted({str(p.device) for p in network.parameters()}),
                      " buffers:", sorted({str(b.device) for b in network.buffers()}))
                print("network[0].weight is the same object:", network[0].weight is weight_before,
                      "; the optimizer holds it:", any(p is weight_before for p in optimizer.param_groups[0]["params"]))
                loss = network(minitorch.randn(5, 3, device="cuda")).pow(2).mean()
                loss.backward()
                optimizer.step()                                  # updates the parameters, on the GPU
                print("one training step on", loss.device, "; the gradients are on",
                      sorted({str(p.grad.device) for p in network.parameters()}))
        except NotImplementedError:
            print("module_to is not written yet: finish exercise 3, then run this cell again.")
        """
    ),
    md(
        """
        ## Summary

        * A **device** is where a tensor's numbers live: `cpu` (host memory) or `cuda:N` (the memory of GPU card
          N). `minitorch.cuda.is_available()` and `device_count()` say what the machine has.
        * Create tensors where they are needed (`device=`, `zeros_like`, `new_ones`), or copy them with `.to()` /
          `.cpu()`. `.to()` returns the tensor itself when nothing changes; `model.to()` moves a model in place.
        * Write `device = minitorch.device("cuda" if minitorch.cuda.is_available() else "cpu")` once and use
          `device` everywhere: the code then runs on any machine.
        * An operation runs where its inputs are; inputs on two devices are an error naming both.
        * A copy moves `numel * element_size` bytes and costs a fixed latency plus bytes over bandwidth; hidden
          copies (`.item()`, `print`, `.numpy()`) also wait for the GPU.
        * One code path, two array libraries: each device type has a backend (`minitorch/_device.py`) whose array
          module (NumPy or CuPy) the ops call.
        * Time GPU work after warm-up, with `synchronize()` before each clock read; the GPU wins above a crossover
          size, and `widgets.DeviceTimer` finds it.

        Next: chapter 4 builds networks with `nn.Module`. Run the last cell to see which exercises pass.
        """
    ),
    code(
        """
        summary("ch03")
        """
    ),
]

write("03_devices", cells)
