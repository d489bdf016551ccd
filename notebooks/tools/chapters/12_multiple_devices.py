"""Chapter 12: multiple devices. DataParallel step by step on CPU replicas, and what changes on real GPUs."""

from author import code, md, solution, tests, write

cells = [
    md(
        """
        # Chapter 12 · Multiple devices

        One GPU has a fixed amount of memory and arithmetic. When a model trains too slowly on one, or its batch
        no longer fits, the next step is several devices working on the same training step. This chapter shows the
        simplest way to do that, **data parallelism**, with `nn.DataParallel`, and takes it apart piece by piece.

        By the end of this chapter you will be able to:

        * say what data parallelism is: the same model on every device, each device on its own slice of the batch;
        * run the four steps of `nn.DataParallel` by hand: **scatter**, **replicate**, **parallel apply**,
          **gather** (`minitorch/nn/parallel/`);
        * show that the outputs and gradients are those of one device running the whole batch, and explain why
          (the backward of a copy is a sum);
        * use `DataParallel` without any GPU, on CPU replicas, and read what changes on a real multi-GPU machine
          (`device_ids`, `output_device`, memory per card);
        * explain why PyTorch recommends `DistributedDataParallel` for serious work, and average gradients the way
          it does;
        * train with `DistributedDataParallel` in several processes started by the launcher, see each rank's batches
          and the averaged gradients, measure the speed-up, and write the ring all-reduce and `DistributedSampler`'s
          partition yourself;
        * build DDP's gradient averaging yourself: buckets in reverse order of registration up to a byte cap, a
          hook per parameter, one all-reduce per bucket, checked in real processes against minitorch's DDP.

        No GPU is needed: minitorch runs `DataParallel` on CPU replicas (threads on your CPU), with the same
        arithmetic as on GPUs.
        """
    ),
    code(
        """
        import copy
        import inspect
        import threading
        import time

        import matplotlib.pyplot as plt
        import numpy as np
        from sklearn.datasets import load_digits
        from threadpoolctl import threadpool_limits

        import minitorch
        import minitorch.nn.functional as F
        from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)
        from minitorch import nn
        from minitorch.nn.parallel import gather, parallel_apply, replicate, scatter

        minitorch.manual_seed(0);
        """
    ),
    md(
        """
        ## 1. Data parallelism in one picture

        There are two ways to spread a model over devices. **Model parallelism** puts different layers on
        different devices (for models too big for one card). **Data parallelism** puts a full copy of the model
        on every device and gives each device a different slice of the batch: with 4 GPUs, a batch of 256 becomes
        four batches of 64, processed at the same time. It is by far the more common, and it is what
        `nn.DataParallel` does, in four steps every forward pass:

        ```
                              batch (8 rows) on device 0
                                       |
            1. scatter     cut along dim 0, send each piece to its device
                     /                 |                 \\
                rows 0-2           rows 3-5           rows 6-7
                    |                  |                  |
            2. replicate   a copy of the model's weights on every device
            3. parallel_apply   every replica runs its piece, all at once
                    |                  |                  |
                 out 0-2            out 3-5            out 6-7
                     \\                 |                 /
            4. gather      concatenate the pieces on the output device
                                       |
                               output (8 rows)
        ```

        Backward runs the same path in reverse, and each weight's gradients from all replicas are **added** on
        the original weight, so an optimizer then takes one ordinary step.

        ## 2. The four steps by hand

        minitorch exposes the four steps as functions in `minitorch.nn.parallel`, as PyTorch does in
        `torch.nn.parallel`. On a machine with GPUs, the devices would be `cuda:0`, `cuda:1`, ...; here we use three
        CPU "devices", which minitorch allows for exactly this purpose.

        ### Step 1: scatter

        `scatter` cuts every tensor in the arguments along dimension 0 the way `tensor.chunk(n)` does: pieces of
        `ceil(rows / n)` rows, the last one smaller. Watch the corner cases: 5 rows on 3 devices give 2, 2 and 1;
        but 4 rows on 3 devices give only **two** pieces of 2, and 9 rows on 4 devices three pieces of 3, so
        fewer replicas run than there are devices.
        """
    ),
    code(
        """
        devices = ["cpu", "cpu", "cpu"]
        batch = minitorch.arange(10.0).reshape(5, 2)
        pieces = scatter(batch, devices)
        print("5 rows on 3 devices:", [tuple(piece.shape) for piece in pieces])
        print(pieces[0])
        print("4 rows on 3 devices:", [tuple(piece.shape) for piece in scatter(minitorch.zeros(4, 2), devices)])
        four_devices = devices + ["cpu"]
        print("9 rows on 4 devices:", [tuple(piece.shape) for piece in scatter(minitorch.zeros(9, 2), four_devices)])
        """
    ),
    md(
        """
        ### Step 2: replicate

        `replicate(model, devices)` makes one replica of the model per device. A replica is a shallow copy of
        each module, whose weights are **not** parameters of its own: they are the outputs of a differentiable
        copy operation, `Broadcast` (`minitorch/nn/parallel/_functions.py`). That is why the gradients computed
        through a replica flow back to the original model. On CPU "devices" the copies even share the original's
        memory; on GPUs each is a real copy in that card's memory.
        """
    ),
    code(
        """
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
        replicas = replicate(model, devices)
        first_layer = replicas[1][0]
        print("replica 1's first weight:", tuple(first_layer.weight.shape),
              "grad_fn =", first_layer.weight.grad_fn.name())
        print("replica 1's parameters():", list(replicas[1].parameters()), "(nothing to train: it lives for one step)")
        print("same numbers as the original:", bool(minitorch.equal(first_layer.weight, model[0].weight)))
        """
    ),
    md(
        """
        ### Step 3: parallel apply

        `parallel_apply(replicas, inputs)` calls each replica on its piece, each in its own **thread**, all at
        once. Threads suit this in PyTorch and in minitorch because the heavy work happens outside Python: a GPU
        runs its queue while the thread that filled it waits, and NumPy's matrix products release Python's
        interpreter lock. A forward hook on the model shows which thread ran which piece (a replica shares its
        original's hooks):
        """
    ),
    code(
        """
        seen = []
        hook = model.register_forward_hook(
            lambda module, inputs, output: seen.append((threading.current_thread().name, tuple(inputs[0].shape)))
        )
        batch = minitorch.randn(8, 4)
        pieces = scatter(batch, devices)
        outputs = parallel_apply(replicas, [(piece,) for piece in pieces], None, devices)
        hook.remove()
        for thread_name, shape in sorted(seen):
            print(f"{thread_name}: input {shape}")
        print("output pieces:", [tuple(out.shape) for out in outputs])
        """
    ),
    md(
        """
        ### Step 4: gather

        `gather(outputs, device)` concatenates the pieces along dimension 0 on one device (the *output device*,
        by default the first). The result is exactly what the model gives on the whole batch:
        """
    ),
    code(
        """
        output = gather(outputs, "cpu")
        single = model(batch)
        print("gathered:", tuple(output.shape), " largest difference from model(batch):",
              (output - single).abs().max().item())
        """
    ),
    md(
        """
        ### And backward

        Every step was made of differentiable operations: `chunk` and `to` in scatter, `Broadcast` in replicate,
        the layers, `cat` in gather. So `loss.backward()` on the gathered output just works: `cat`'s backward
        cuts the gradient into the replicas' pieces, each replica's layers compute their weight gradients on their
        own piece, and `Broadcast`'s backward adds the weight gradients of all replicas on the original weight.
        The sum is the chain rule for a value used in several places, and it is exactly the gradient of the
        whole batch, because the loss on the whole batch is a sum over rows:
        """
    ),
    code(
        """
        from minitorch.nn.parallel._functions import Broadcast

        print(inspect.getsource(Broadcast.backward))
        """
    ),
    code(
        """
        targets = minitorch.randint(0, 3, (8,))

        model.zero_grad()
        F.cross_entropy(gather(parallel_apply(replicate(model, devices), [(p,) for p in scatter(batch, devices)],
                                              None, devices), "cpu"), targets).backward()
        by_hand = [parameter.grad.clone() for parameter in model.parameters()]

        model.zero_grad()
        F.cross_entropy(model(batch), targets).backward()
        for (name, parameter), gradient in zip(model.named_parameters(), by_hand):
            print(f"{name:>8}: largest gradient difference {(gradient - parameter.grad).abs().max().item():.1e}")
        """
    ),
    md(
        """
        The differences are at the level of float32 rounding (about `1e-7` relative): adding the same numbers in
        another order rounds slightly differently, and that is all.

        ## 3. `nn.DataParallel`

        `nn.DataParallel(model)` wraps a model and does the four steps on every call (read
        `minitorch/nn/parallel/data_parallel.py`: its `forward` is a dozen lines). In PyTorch, `device_ids` defaults
        to every GPU, and on a machine without GPUs the wrapper simply calls the model. minitorch adds a way to
        watch data parallelism without GPUs: **CPU replicas**, `nn.DataParallel(model, num_replicas=3)` (the same
        as `device_ids=["cpu", "cpu", "cpu"]`; PyTorch refuses CPU device ids, so this line is minitorch only).
        """
    ),
    code(
        """
        minitorch.manual_seed(0)
        model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))
        parallel = nn.DataParallel(model, num_replicas=3)
        print(parallel)
        print("device_ids:", parallel.device_ids, " output_device:", parallel.output_device)

        batch, targets = minitorch.randn(7, 64), minitorch.randint(0, 10, (7,))
        loss_parallel = F.cross_entropy(parallel(batch), targets)
        loss_parallel.backward()
        gradients_parallel = [parameter.grad.clone() for parameter in model.parameters()]

        model.zero_grad()
        loss_single = F.cross_entropy(model(batch), targets)
        loss_single.backward()
        print(f"\\nloss: DataParallel {loss_parallel.item():.6f}, one device {loss_single.item():.6f}")
        print("largest gradient difference:",
              max((a - p.grad).abs().max().item() for a, p in zip(gradients_parallel, model.parameters())))
        """
    ),
    md(
        """
        The wrapper keeps the model as `.module`, so its `state_dict` keys gain a `module.` prefix. A checkpoint
        saved from the wrapper does not load into the bare model; save `parallel.module.state_dict()` instead.
        (This trips up many PyTorch users.)
        """
    ),
    code(
        """
        print("wrapper keys:", list(parallel.state_dict())[:2], "...")
        print("model keys:  ", list(parallel.module.state_dict())[:2], "...")
        """
    ),
    md(
        """
        ### Training with `DataParallel`

        Training code does not change: wrap the model, and give the optimizer the original model's parameters (the
        wrapper's `parameters()` are the same objects). Below, two copies of the same small network learn the
        scikit-learn digits (8 x 8 images of handwritten digits), one on a single device and one on 3 CPU replicas,
        with the same batches. The loss curves should lie on top of each other.

        (BLAS, NumPy's matrix library, is limited to one thread per replica here: otherwise, three replicas times
        several BLAS threads each would fight over a laptop's few cores.)
        """
    ),
    code(
        """
        digits = load_digits()
        images = minitorch.tensor(digits.data / 16.0, dtype=minitorch.float32)
        labels = minitorch.tensor(digits.target)

        minitorch.manual_seed(0)
        single = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))
        replicated = copy.deepcopy(single)                       # the same starting weights
        runs = {
            "one device": (single, single),
            "DataParallel, 3 CPU replicas": (nn.DataParallel(replicated, num_replicas=3), replicated),
        }
        curves = {name: [] for name in runs}
        optimizers = {name: minitorch.optim.SGD(trained.parameters(), lr=0.1) for name, (_, trained) in runs.items()}

        order = np.random.default_rng(0).permutation(len(labels))
        with threadpool_limits(limits=1):
            for _epoch in range(3):
                for start in range(0, len(order), 64):
                    rows = minitorch.tensor(order[start:start + 64])
                    for name, (network, _) in runs.items():
                        loss = F.cross_entropy(network(images[rows]), labels[rows])
                        optimizers[name].zero_grad()
                        loss.backward()
                        optimizers[name].step()
                        curves[name].append(loss.item())

        plt.figure(figsize=(6, 3))
        for name, curve in curves.items():
            plt.plot(curve, label=name, linestyle="-" if name == "one device" else "--")
        plt.xlabel("step")
        plt.ylabel("cross-entropy")
        plt.legend()
        plt.show()
        difference = max((a - b).abs().max().item() for a, b in zip(single.parameters(), replicated.parameters()))
        print(f"after {len(curves['one device'])} steps, largest weight difference: {difference:.1e}")
        """
    ),
    md(
        """
        ### Is it faster?

        Not here. CPU replicas run in threads on the same CPU cores that a single model would use anyway, so
        there is no extra arithmetic to gain, and every step pays for scattering, replicating and gathering.
        Time one forward and backward pass both ways:
        """
    ),
    code(
        """
        def median_step_seconds(network, batch, targets, repeats=7):
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                F.cross_entropy(network(batch), targets).backward()
                times.append(time.perf_counter() - start)
            return float(np.median(times))


        wide = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 10))
        batch, targets = minitorch.randn(256, 256), minitorch.randint(0, 10, (256,))
        with threadpool_limits(limits=1):
            one = median_step_seconds(wide, batch, targets)
            two = median_step_seconds(nn.DataParallel(wide, num_replicas=2), batch, targets)
        print(f"one device:         {one * 1e3:6.1f} ms per step")
        print(f"2 CPU replicas:     {two * 1e3:6.1f} ms per step")
        """
    ),
    md(
        """
        On a GPU machine the picture changes: every replica has a card of its own, with its own arithmetic and
        memory, so `k` GPUs can approach `k` times the throughput on large batches, minus the cost of the copies.
        CPU replicas are for seeing the mechanism; the speed comes with real devices.

        ## 4. On a real multi-GPU machine

        With GPUs, `DataParallel` is used like this:

        ```python
        model = Net().to("cuda:0")                                   # the model lives on device_ids[0]
        parallel = nn.DataParallel(model, device_ids=[0, 1, 2, 3])   # default: every GPU
        output = parallel(batch)                                     # batch may be on the CPU or cuda:0
        loss = loss_function(output, targets.to("cuda:0"))           # output is on output_device (default: 0)
        ```

        * `device_ids` are GPU indices (`[0, 1]` or `["cuda:0", "cuda:1"]`). The model's parameters and buffers
          must already be on `device_ids[0]`; the replicas are copied from there on every forward.
        * `output_device` is where `gather` puts the result (default `device_ids[0]`; `-1` means the CPU).

        We cannot run that without two GPUs, but the pretend GPUs of chapter 3 can: a `cuda` backend that keeps its
        arrays in host memory (`minitorch/_device.py`). Every device rule is then checked exactly as on GPUs. On a
        machine with two real GPUs, the cell uses them instead.
        """
    ),
    code(
        """
        import contextlib

        from minitorch import _device


        class PretendGPUs(_device.NumpyBackend):
            \"\"\"A 'cuda' device type with `count` devices in host memory: NumPy computes, transfers copy.\"\"\"

            def __init__(self, count):
                super().__init__("cuda")
                self.count = count

            def device_count(self):
                return self.count

            def to_device(self, array, index, blocking=False):
                return np.array(array, copy=True)

            def to_host(self, array, non_blocking=False):
                return np.array(array, copy=True)


        @contextlib.contextmanager
        def two_gpus():
            \"\"\"Inside this block there are two or more 'cuda' devices: real ones if present, else pretend.\"\"\"
            if minitorch.cuda.device_count() >= 2:
                yield
                return
            previous = _device.register_backend("cuda", PretendGPUs(2))
            try:
                yield
            finally:
                _device.register_backend("cuda", previous)
        """
    ),
    code(
        """
        with two_gpus():
            network = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
            try:
                nn.DataParallel(network, device_ids=[0, 1])(minitorch.randn(6, 4))
            except RuntimeError as error:
                print("model left on the CPU -> RuntimeError:", error)

            network.to("cuda:0")
            parallel = nn.DataParallel(network, device_ids=[0, 1])
            print("\\ndevice_ids:", parallel.device_ids, " output_device:", parallel.output_device)
            batch = minitorch.randn(6, 4)                       # on the CPU: scatter moves each piece to its GPU
            print("pieces go to:", [str(piece.device) for piece in scatter(batch, [0, 1])])
            output = parallel(batch)
            print("output is on", output.device)
            output.sum().backward()
            print("gradients land on the original weights, on", network[0].weight.grad.device)

            to_cpu = nn.DataParallel(network, device_ids=[0, 1], output_device=-1)
            print("with output_device=-1 the output is on", to_cpu(batch).device)
        """
    ),
    md(
        """
        ### Memory per card

        Each card has its own memory, and `DataParallel` does not fill them evenly. For a model with `P` float32
        parameters trained with Adam, on `k` GPUs with a batch `B`:

        | on | holds |
        |---|---|
        | every card | a copy of the weights (`4P` bytes) and the activations of its `B/k` rows |
        | card 0 as well | the original weights, their gradients (`4P`), Adam's two averages (`8P`), outputs, loss |

        So card 0 fills up first, and the largest batch is set by card 0, not by the total memory. A model of 1
        billion parameters needs 16 GB on card 0 before a single activation, however many GPUs there are.

        ### Why PyTorch recommends `DistributedDataParallel`

        `DataParallel` is one Python process driving every GPU from threads, and on every step it copies the
        weights out from card 0, scatters the inputs from card 0, gathers the outputs to card 0 and sums the
        gradients on card 0. Card 0 and Python's interpreter lock become the bottleneck, and it cannot span
        several machines. PyTorch's documentation therefore recommends `DistributedDataParallel` (DDP) instead:

        * **one process per GPU**, each with its own copy of the model, made once at the start (not every step);
        * each process loads its **own share of the data** (`DistributedSampler`) and computes the loss on its own
          batch, so nothing is scattered or gathered;
        * during backward, gradients are **averaged across processes** with an *all-reduce* (every process ends
          with the same average), in buckets that overlap communication with the rest of the backward pass;
        * every process then takes the same optimizer step, so the copies stay identical;
        * the same code runs on several machines, started with `torchrun --nproc_per_node=4 train.py`.

        ```python
        # PyTorch on GPUs; start with: torchrun --nproc_per_node=4 train.py (minitorch: section 5)
        import os
        import torch
        import torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        from torch.utils.data import DataLoader, DistributedSampler

        dist.init_process_group("nccl")                        # one process per GPU; torchrun says which one
        local_rank = int(os.environ["LOCAL_RANK"])
        torch.cuda.set_device(local_rank)
        model = DDP(Net().to(local_rank), device_ids=[local_rank])   # the same start weights in every process
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        sampler = DistributedSampler(dataset)                   # a different share of the data per process
        for epoch in range(epochs):
            sampler.set_epoch(epoch)                            # new shares every epoch
            for images, labels in DataLoader(dataset, batch_size=64, sampler=sampler):
                loss = loss_function(model(images.to(local_rank)), labels.to(local_rank))
                optimizer.zero_grad()
                loss.backward()                                 # gradients all-reduced (averaged) here
                optimizer.step()
        ```

        Note the difference in the arithmetic. `DataParallel` computes one loss on the gathered batch, so the
        replicas' gradients are **summed**, and the sum is always exactly the whole batch's gradient. DDP computes
        a mean loss per process, so the gradients are **averaged**; the average equals the gradient of the mean
        loss over all the rows when every process has the same number of rows. Exercise 3 handles the case when
        they do not.

        ## 5. `DistributedDataParallel` in minitorch

        minitorch has the same pieces, with the same names: `minitorch.distributed` (process groups and
        collectives such as `all_reduce`), `nn.parallel.DistributedDataParallel`, `utils.data.distributed.
        DistributedSampler`, and a launcher like `torchrun`:

        ```
        python -m minitorch.distributed.run --nproc-per-node 2 train_ddp.py
        ```

        The launcher starts 2 Python processes (*ranks* 0 and 1) through MPI's `mpiexec` (the `mpich` package
        puts it next to your Python), and sets `RANK`, `LOCAL_RANK` and `WORLD_SIZE` in each, as `torchrun` does.
        `init_process_group("mpi")` connects them; the communication itself is done by MPI (through `mpi4py`),
        not by minitorch. If one rank fails, the launcher stops the others and tells you which rank failed and why.

        A notebook is a single process, so the training code goes into a script of its own. The cell below
        writes it, with the digits data next to it. Read it: apart from `init_process_group`, the sampler and the
        wrapper, it is the training loop of chapter 6. (It also takes one step in detail: this rank's own gradient,
        computed under `no_sync()`, which turns the averaging off, and then the averaged one that DDP produces.)

        """
    ),
    code(
        """
        import json
        import os
        import subprocess
        import sys
        import tempfile
        import textwrap
        from pathlib import Path

        workdir = Path(tempfile.mkdtemp(prefix="ch12-ddp-"))
        np.savez(workdir / "digits.npz", images=(digits.data / 16.0).astype(np.float32), labels=digits.target)
        script = workdir / "train_ddp.py"
        script.write_text(textwrap.dedent('''
            \"\"\"Train the digits MLP with DistributedDataParallel, one rank per process:
            python -m minitorch.distributed.run --nproc-per-node 2 train_ddp.py FOLDER\"\"\"
            import json
            import sys
            import time

            import numpy as np

            import minitorch
            import minitorch.distributed as dist
            import minitorch.nn.functional as F
            from minitorch import nn
            from minitorch.nn.parallel import DistributedDataParallel
            from minitorch.utils.data import DataLoader, TensorDataset
            from minitorch.utils.data.distributed import DistributedSampler

            GLOBAL_BATCH, EPOCHS = 256, 3
            folder = sys.argv[1]
            dist.init_process_group("mpi")                  # the rank and the world size come from the launcher
            rank, world = dist.get_rank(), dist.get_world_size()

            data = np.load(f"{folder}/digits.npz")
            dataset = TensorDataset(minitorch.tensor(data["images"]), minitorch.tensor(data["labels"]),
                                    minitorch.arange(len(data["labels"])))
            sampler = DistributedSampler(dataset, shuffle=True, seed=0)       # this rank's share of the data
            loader = DataLoader(dataset, batch_size=GLOBAL_BATCH // world, sampler=sampler)

            minitorch.manual_seed(rank)                      # different weights on purpose: DDP copies rank 0's
            network = nn.Sequential(nn.Linear(64, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
            model = DistributedDataParallel(network)
            optimizer = minitorch.optim.SGD(model.parameters(), lr=0.1)

            # One step in detail: this rank's own gradient (no_sync: not averaged), then DDP's averaged one.
            images, labels, indices = next(iter(loader))
            with model.no_sync():
                F.cross_entropy(model(images), labels).backward()
            local = network[4].bias.grad.clone()
            optimizer.zero_grad()
            F.cross_entropy(model(images), labels).backward()
            averaged = network[4].bias.grad.clone()

            dist.barrier()
            start = time.perf_counter()
            for epoch in range(EPOCHS):
                sampler.set_epoch(epoch)                     # a new shuffle every epoch, the same on every rank
                for images, labels, _ in loader:
                    optimizer.zero_grad()
                    F.cross_entropy(model(images), labels).backward()   # gradients averaged during backward
                    optimizer.step()
            dist.barrier()
            seconds = time.perf_counter() - start
            with open(f"{folder}/rank{rank}-of-{world}.json", "w") as file:
                json.dump({"rank": rank, "first_batch": indices.tolist(), "local_grad": local.tolist(),
                           "averaged_grad": averaged.tolist(), "seconds": seconds,
                           "samples": EPOCHS * len(sampler) * world,
                           "weights": [float(p.detach().double().sum()) for p in network.parameters()]}, file)
            dist.destroy_process_group()
        '''))
        print(f"wrote {script}")
        """
    ),
    md(
        """
        Now run it on 2 processes. (`OMP_NUM_THREADS=1`: each process computes with one thread, so the 2
        processes use 2 cores; the one-process run later gets one thread too, for a fair comparison.)
        """
    ),
    code(
        """
        def launch(processes):
            \"\"\"Run train_ddp.py on `processes` ranks with the launcher; return what each rank recorded.\"\"\"
            command = [sys.executable, "-m", "minitorch.distributed.run", "--nproc-per-node", str(processes),
                       str(script), str(workdir)]
            result = subprocess.run(command, capture_output=True, text=True, timeout=600,
                                    env=dict(os.environ, OMP_NUM_THREADS="1"))
            if result.returncode != 0:
                raise RuntimeError(f"the job failed:\\n{result.stdout}\\n{result.stderr}")
            return [json.loads((workdir / f"rank{rank}-of-{processes}.json").read_text()) for rank in range(processes)]


        ranks = launch(2)
        for run in ranks:
            print(f"rank {run['rank']}: its first batch has {len(run['first_batch'])} samples, "
                  f"starting with {run['first_batch'][:6]}")
        overlap = set(ranks[0]["first_batch"]) & set(ranks[1]["first_batch"])
        print("samples in both first batches:", len(overlap))
        """
    ),
    md(
        """
        Each rank trained on its own half of every batch (the sampler deals the shuffled indices out like cards).
        Here is the gradient of the last layer's bias on each rank before averaging, and after DDP's all-reduce:
        """
    ),
    code(
        """
        local = np.array([run["local_grad"] for run in ranks])
        averaged = np.array([run["averaged_grad"] for run in ranks])
        np.set_printoptions(precision=4, suppress=True)
        for rank in range(2):
            print(f"rank {rank}, its own gradient:  {local[rank][:5]} ...")
        for rank in range(2):
            print(f"rank {rank}, after all_reduce: {averaged[rank][:5]} ...")
        print("\\nthe average of the two own gradients:", local.mean(axis=0)[:5], "...")
        print("largest difference from DDP's result:", float(np.abs(averaged - local.mean(axis=0)).max()))
        print("after training, the same weights on both ranks:", ranks[0]["weights"] == ranks[1]["weights"])
        """
    ),
    md(
        """
        Both ranks end the backward pass with the same gradient, the average of their own ones (up to the rounding
        of float32 additions), and so take the same optimizer step: the copies of the model never drift apart,
        although rank 1 started from other random weights (DDP copied rank 0's at construction).

        How does the averaging happen *during* backward? Read `minitorch/nn/parallel/distributed.py`: every
        parameter has a hook that runs as soon as its gradient is complete; the parameters are grouped in
        **buckets** of about 25 MB (1 MB for the first), in reverse order, because backward produces the last
        layer's gradients first. When a bucket is full, its hook starts a non-blocking `all_reduce` and backward
        goes on with the earlier layers while the bytes travel. At the very end of backward, DDP waits for all the
        buckets and writes the averages into `.grad`.

        ### Is it faster?

        Now the same script on one process, which gets the whole batch of 256 at every step:
        """
    ),
    code(
        """
        single = launch(1)[0]
        rate_one = single["samples"] / single["seconds"]
        rate_two = ranks[0]["samples"] / max(run["seconds"] for run in ranks)
        print(f"1 process:   {rate_one:8,.0f} samples/s  ({single['seconds']:.2f} s of training)")
        print(f"2 processes: {rate_two:8,.0f} samples/s  ({max(run['seconds'] for run in ranks):.2f} s of training)")
        print(f"speed-up measured here: {rate_two / rate_one:.2f}x, on a machine with {os.cpu_count()} CPU cores")
        """
    ),
    md(
        """
        That is what this machine measured just now; expect it to vary. Two processes each do half the arithmetic
        of every step, so with two free cores the ideal is 2x. Three things keep it lower: the all-reduce of the
        gradients (300,000 float32 numbers, 1.2 MB, per step for this network, copied between the processes), the
        steps that do not shrink with the batch (the optimizer updates every weight on every rank), and anything
        else running on the machine: on a laptop with 2 cores busy with other work, the speed-up can vanish. DDP
        pays off when each process has a device of its own and the computation per step is large.

        ### On GPUs, and on several machines

        On GPUs the same script changes in three lines: `init_process_group("nccl")`, the model on
        `f"cuda:{local_rank}"` with `LOCAL_RANK` from the environment, and `DistributedDataParallel(model,
        device_ids=[local_rank])`. **NCCL** (NVIDIA's collective library) then moves the gradients directly between
        the GPUs' memories, over NVLink or PCIe inside a machine and InfiniBand or Ethernet between machines,
        with an algorithm (a *ring*, exercise 5, or a tree) whose time barely grows with the number of GPUs.
        minitorch's `"nccl"` backend calls NCCL through CuPy (`cupyx.distributed`); it is written but untested,
        as this course runs without GPUs.

        Several machines run the same job: one process per GPU on each, started by the launcher with the machines'
        names (`--hosts node1,node2 --nproc-per-node 4`, through `mpiexec` and `ssh`; PyTorch's `torchrun` uses
        `--nnodes 2 --rdzv-endpoint node1:29500` instead). Every process must find the same script and data, and
        each uses `DistributedSampler` to read only its own share.
        """
    ),
    md(
        """
        ## 6. Exercises

        Six pieces of data parallelism on tensors, then DDP's gradient buckets across real processes (exercise 7).
        Loops over the replicas or ranks (a handful) are fine; loops over rows are not needed.

        ### Exercise 1 · scatter a batch

        Write `scatter_batch(x, num_chunks)`: cut `x` along dimension 0 the way `x.chunk(num_chunks)` does, and
        return the pieces as a tuple. Every piece has `ceil(rows / num_chunks)` rows except possibly the last,
        which has what is left, so there may be fewer than `num_chunks` pieces (4 rows in 3 chunks: 2 + 2). Use
        slicing (`x[start:stop]`), not `chunk` or `split`.
        """
    ),
    solution(
        '''
        def scatter_batch(x, num_chunks):
            """x cut along dim 0 into pieces of ceil(rows / num_chunks) rows (the last may be smaller), as a tuple."""
            ### BEGIN SOLUTION
            rows = x.shape[0]
            size = -(-rows // num_chunks)          # ceil(rows / num_chunks) in integers
            return tuple(x[start:start + size] for start in range(0, rows, size))
            ### END SOLUTION
        ''',
        "scatter_batch",
    ),
    tests(
        """
        check("ch12.scatter_batch", scatter_batch)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch12.scatter_batch", scatter_batch, [
            (randn(10, 3, seed=1210), 4),
            (randn(7, 2, 2, seed=1211), 7),
            (randn(3, 5, seed=1212), 1),
            (randn(6, 1, seed=1213), 5),
        ])
        ### END HIDDEN TESTS
        """,
        "test_scatter_batch",
    ),
    md(
        """
        ### Exercise 2 · gather the outputs

        Write `gather_outputs(*outputs)`: the replicas' outputs, concatenated along dimension 0. There is one more
        case that `DataParallel` handles: when every output is a 0-dimensional tensor (each replica returned its
        loss, a single number), concatenation is impossible, so it returns them as a vector with one entry per
        replica. Do the same.
        """
    ),
    solution(
        '''
        def gather_outputs(*outputs):
            """The outputs concatenated along dim 0; 0-d outputs become a vector, one entry per replica."""
            ### BEGIN SOLUTION
            if all(output.dim() == 0 for output in outputs):
                outputs = [output.reshape(1) for output in outputs]
            return minitorch.cat(list(outputs), dim=0)
            ### END SOLUTION
        ''',
        "gather_outputs",
    ),
    tests(
        """
        check("ch12.gather_outputs", gather_outputs)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch12.gather_outputs", gather_outputs, [
            (randn(1, 2, 2, seed=1220), randn(1, 2, 2, seed=1221), randn(1, 2, 2, seed=1222),
             randn(1, 2, 2, seed=1223)),
            (randn(1, seed=1224).reshape(()), randn(1, seed=1225).reshape(())),
            (randn(5, seed=1226),),
        ])
        ### END HIDDEN TESTS
        """,
        "test_gather_outputs",
    ),
    md(
        """
        ### Exercise 3 · average gradients from replicas

        In the DDP style, replica `k` computes the **mean** loss over its own `n_k` rows and its gradient `g_k`.
        The gradient of the mean loss over all `N = n_1 + ... + n_K` rows is then the **weighted** average

        `g = (n_1 g_1 + n_2 g_2 + ... + n_K g_K) / N`

        which is the plain average only when all chunks have the same size. Write
        `average_gradients(replica_grads, chunk_sizes)`: `replica_grads` has shape `(K, ...)` (replica `k`'s gradient
        is `replica_grads[k]`), `chunk_sizes` is an `int64` tensor of shape `(K,)`. Return `g`, with the shape of one
        gradient and the dtype of `replica_grads`.
        """
    ),
    solution(
        '''
        def average_gradients(replica_grads, chunk_sizes):
            """The gradient of the mean loss over all rows, from each replica's mean-loss gradient and row count."""
            ### BEGIN SOLUTION
            weights = chunk_sizes.to(replica_grads.dtype) / chunk_sizes.sum()
            weights = weights.reshape(-1, *([1] * (replica_grads.dim() - 1)))   # broadcast over a gradient's shape
            return (replica_grads * weights).sum(dim=0)
            ### END SOLUTION
        ''',
        "average_gradients",
    ),
    tests(
        """
        check("ch12.average_gradients", average_gradients)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch12.average_gradients", average_gradients, [
            (randn(4, 6, seed=1230), np.array([16, 16, 16, 12], dtype=np.int64)),
            (randn(1, 2, 3, seed=1231), np.array([5], dtype=np.int64)),
            (randn(3, 2, 2, 2, seed=1232, dtype="float64"), np.array([1, 7, 2], dtype=np.int64)),
        ])
        ### END HIDDEN TESTS
        """,
        "test_average_gradients",
    ),
    md(
        """
        ### Exercise 4 · a linear layer, data-parallel, forward and backward

        This is what `DataParallel` computes for one `Linear` layer, written out. The batch `x` `(N, in)` and the
        gradient arriving from the loss, `grad_output` `(N, out)`, are cut into `num_replicas` pieces (as in
        exercise 1). Replica `k` computes its piece of the output, `x_k @ weight.T + bias`, and, in backward, its
        own gradients, `grad_output_k.T @ x_k` for the weight and `grad_output_k.sum(0)` for the bias. Then:

        * the output pieces are **gathered** (concatenated) into the output `(N, out)`;
        * the weight and bias gradients of the replicas are **summed** (`Broadcast`'s backward; one loss over the
          whole batch, so a sum, not an average).

        Write `replicated_linear(x, weight, bias, grad_output, num_replicas)` returning the tuple
        `(output, grad_weight, grad_bias)`. Compute the gradients with the formulas above, not with `backward()`.
        The result equals the single-device layer's, which the check uses as the reference.
        """
    ),
    solution(
        '''
        def replicated_linear(x, weight, bias, grad_output, num_replicas):
            """(output, grad_weight, grad_bias) of a Linear layer run on num_replicas pieces of the batch."""
            ### BEGIN SOLUTION
            size = -(-x.shape[0] // num_replicas)
            outputs, grad_weight, grad_bias = [], 0, 0
            for start in range(0, x.shape[0], size):
                x_piece, grad_piece = x[start:start + size], grad_output[start:start + size]
                outputs.append(x_piece @ weight.T + bias)
                grad_weight = grad_weight + grad_piece.T @ x_piece
                grad_bias = grad_bias + grad_piece.sum(dim=0)
            return minitorch.cat(outputs, dim=0), grad_weight, grad_bias
            ### END SOLUTION
        ''',
        "replicated_linear",
    ),
    tests(
        """
        check("ch12.replicated_linear", replicated_linear)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch12.replicated_linear", replicated_linear, [
            (randn(9, 4, seed=1240), randn(3, 4, seed=1241), randn(3, seed=1242), randn(9, 3, seed=1243), 4),
            (randn(1, 2, seed=1244), randn(5, 2, seed=1245), randn(5, seed=1246), randn(1, 5, seed=1247), 3),
            (randn(8, 6, seed=1248), randn(2, 6, seed=1249), randn(2, seed=1250), randn(8, 2, seed=1251), 1),
        ])
        ### END HIDDEN TESTS
        """,
        "test_replicated_linear",
    ),
    md(
        """
        ### Exercise 5 · the ring all-reduce

        How do `W` processes all end with the sum of their buffers? Sending everything to one process and back
        makes that one a bottleneck. The **ring all-reduce** (used by NCCL, and by MPI for large messages) keeps
        every link busy instead. The ranks stand in a ring, `k` sends to `(k + 1) % W`, and each buffer is cut into
        `W` chunks (`tensor_split(W)`: sizes differing by at most one). Two phases of `W - 1` steps each:

        * **reduce-scatter**: in step `s`, rank `k` sends its chunk `(k - s) % W` to the next rank, which **adds**
          it to its own copy of that chunk. Afterwards rank `k` holds the complete sum of chunk `(k + 1) % W`.
        * **all-gather**: in step `s`, rank `k` sends its chunk `(k + 1 - s) % W` (complete, at that point) to the
          next rank, which **replaces** its copy with it.

        Every rank sends `2 (W - 1) / W` times its buffer in total, whatever `W` is: that is why the time barely
        grows with the number of GPUs.

        Write `ring_all_reduce(buffers)`: `buffers` has shape `(W, N)`, row `k` is rank `k`'s buffer. Simulate the
        two phases and return the `(W, N)` tensor of what every rank holds at the end (every row: the sum of all
        rows). All sends of one step happen at the same time, so compute them from the values *before* the step.
        """
    ),
    solution(
        '''
        def ring_all_reduce(buffers):
            """What each of the W ranks holds after a ring all-reduce (SUM) of the rows of buffers, shape (W, N)."""
            ### BEGIN SOLUTION
            world = buffers.shape[0]
            chunks = [list(row.tensor_split(world)) for row in buffers.clone()]   # chunks[rank][c]
            for step in range(world - 1):                    # reduce-scatter
                sent = [chunks[k][(k - step) % world].clone() for k in range(world)]
                for k in range(world):
                    c = (k - step) % world
                    chunks[(k + 1) % world][c] = chunks[(k + 1) % world][c] + sent[k]
            for step in range(world - 1):                    # all-gather
                sent = [chunks[k][(k + 1 - step) % world].clone() for k in range(world)]
                for k in range(world):
                    chunks[(k + 1) % world][(k + 1 - step) % world] = sent[k]
            return minitorch.stack([minitorch.cat(row) for row in chunks])
            ### END SOLUTION
        ''',
        "ring_all_reduce",
    ),
    tests(
        """
        check("ch12.ring_all_reduce", ring_all_reduce)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch12.ring_all_reduce", ring_all_reduce, [
            (randn(5, 12, seed=1260),),
            (randn(2, 3, seed=1261),),
            (randn(4, 5, seed=1262, dtype="float64"),),
            (randn(3, 2, seed=1263),),
        ])
        ### END HIDDEN TESTS
        """,
        "test_ring_all_reduce",
    ),
    md(
        """
        Your ring on the real thing: the two ranks' own gradients from the DDP run of section 5, summed by your
        ring and divided by the number of ranks, against what DDP computed.
        """
    ),
    code(
        """
        try:
            by_ring = ring_all_reduce(minitorch.tensor(local)) / len(local)
            difference = (by_ring - minitorch.tensor(averaged)).abs().max().item()
            print("largest difference from DDP's averaged gradient:", difference)
        except NotImplementedError:
            print("ring_all_reduce is not written yet")
        """
    ),
    md(
        """
        ### Exercise 6 · each rank's share of the data

        `DistributedSampler` gives rank `r` of `W` its share of a dataset's `N` indices. Write
        `rank_indices(indices, num_replicas, rank, drop_last)`: `indices` is an `int64` tensor of the `N` indices in
        the epoch's order (already shuffled, the same on every rank). Return rank `rank`'s share as PyTorch does:

        * every rank must get the same number of samples: without `drop_last`, the list is padded to
          `ceil(N / W) * W` entries by repeating it from its beginning; with `drop_last`, it is cut to
          `floor(N / W) * W` entries;
        * then the entries are dealt out like cards: rank `r` gets the entries at positions `r, r + W, r + 2W, ...`.

        Example: `indices = [0, 1, ..., 9]`, `W = 4`: padded to `0 .. 9, 0, 1`; rank 2 gets `[2, 6, 0]`.
        """
    ),
    solution(
        '''
        def rank_indices(indices, num_replicas, rank, drop_last):
            """Rank `rank`'s share of `indices` (int64), padded or cut to a multiple of num_replicas, then strided."""
            ### BEGIN SOLUTION
            count = indices.shape[0]
            if drop_last:
                padded = indices[: count // num_replicas * num_replicas]
            else:
                total = -(-count // num_replicas) * num_replicas      # ceil(N / W) * W
                padded = indices.repeat(-(-total // count))[:total]   # repeated from the beginning, as needed
            return padded[rank::num_replicas]
            ### END SOLUTION
        ''',
        "rank_indices",
    ),
    tests(
        """
        check("ch12.rank_indices", rank_indices)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch12.rank_indices", rank_indices, [
            (np.random.default_rng(1270).permutation(23).astype(np.int64), 4, 3, False),
            (np.random.default_rng(1271).permutation(23).astype(np.int64), 4, 3, True),
            (np.random.default_rng(1272).permutation(3).astype(np.int64), 8, 6, False),
            (np.random.default_rng(1273).permutation(16).astype(np.int64), 4, 0, False),
        ])
        ### END HIDDEN TESTS
        """,
        "test_rank_indices",
    ),
    code(
        """
        from minitorch.utils.data.distributed import DistributedSampler

        try:
            shuffled = minitorch.randperm(10, generator=minitorch.Generator().manual_seed(0))
            mine = [rank_indices(shuffled, 4, rank, False).tolist() for rank in range(4)]
            sampler = [list(DistributedSampler(range(10), num_replicas=4, rank=rank, seed=0)) for rank in range(4)]
            print("your shares:           ", mine)
            print("DistributedSampler's:  ", sampler)
        except NotImplementedError:
            print("rank_indices is not written yet")
        """
    ),
    md(
        """
        ### Exercise 7 · build it: DDP's gradient buckets, with hooks, across real processes

        Now the piece of `DistributedDataParallel` that section 5 described: averaging the gradients **during**
        backward, in buckets. Write a class `BucketedDDP(module, bucket_cap_mb=None)`, a `Module` whose forward is
        `module`'s, that does what PyTorch's DDP (`torch/nn/parallel/distributed.py` and its C++ `Reducer`) does:

        * **buckets, at construction.** Walk the parameters in **reverse** order of registration (backward
          produces the last layer's gradients first) and fill buckets: a parameter joins the current bucket, and the
          bucket closes as soon as its bytes (`numel() * element_size()`, summed) reach the cap, so the parameter
          that crosses the cap still belongs to it. The cap is `bucket_cap_mb * 2**20` bytes (PyTorch's default 25
          MiB); with the default (`bucket_cap_mb=None`), the **first** bucket's cap is only 1 MiB, so the last
          layer's gradients start travelling early. Keep them in `self.buckets`: a list of buckets in launch order,
          each a list of parameters;
        * **a hook per parameter.** `parameter.register_post_accumulate_grad_hook(hook)` calls `hook(parameter)`
          as soon as backward has written that parameter's `.grad`: mark it ready;
        * **a bucket at a time.** When every parameter of a bucket is ready, flatten its gradients into one tensor,
          divide by the world size, `dist.all_reduce` it (one call per bucket: a sum over the ranks, so each rank
          gets the average) and copy each piece back into its `.grad`. Buckets go in order, 0, 1, 2, ...: a
          bucket that completes early waits for the ones before it, because every rank must issue its collectives
          in the same order (MPI pairs the first all-reduce of one rank with the first of the others);
        * **unused parameters are refused.** A parameter that gets no gradient keeps its bucket from ever going.
          PyTorch notices at the next forward: if the previous backward left parameters marked ready but did not
          reduce every bucket, forward raises `RuntimeError("Expected to have finished reduction in the prior
          iteration before starting a new one. ...")` (its full text names the option `find_unused_parameters=True`
          that handles such models).

        Where your version is simpler than PyTorch's (none of these changes the gradients): PyTorch starts with one
        bucket of everything and, after the first iteration, re-forms the buckets in the order the gradients
        actually arrived (for a model that uses its layers in the order it registers them, that is the reverse
        order you use); it keeps one bucket per dtype and device; it launches each all-reduce without waiting
        (`async_op=True`) and waits for all of them in a callback at the end of backward, so the bytes travel while
        backward computes the earlier layers (you may wait at once); it broadcasts rank 0's parameters at
        construction (here every rank builds the same model from the same seed), and has `no_sync()` and
        `find_unused_parameters`.

        `ddp_report_of_mine(...)` (below the class) is the check's experiment: it starts `world_size` real
        processes with minitorch's launcher, wraps the same small network in your class on each rank, runs one
        backward on that rank's rows of a global batch, and reports your buckets, the number of `all_reduce` calls,
        whether each call carried a complete bucket, every rank's gradients and the refusal; the check compares
        them with minitorch's `DistributedDataParallel` in the same processes. Your class travels to the other
        processes as the **text of its cell**, so keep the imports it needs in the cell. (The chapter's names
        `minitorch`, `nn`, `F`, `dist`, `np` and `math` are there already.) `hint("ch12.ddp_buckets")` gives hints
        step by step.
        """
    ),
    solution(
        '''
        import minitorch
        import minitorch.distributed as dist
        from grading.library.ddp import ddp_report  # the experiment the check compares
        from minitorch import nn

        UNFINISHED = (
            "Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable unused "
            "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
            "participate in calculating loss."
        )


        def assign_buckets(parameters, first_cap, cap):
            """Lists of parameters, from the last registered to the first; a bucket closes once it holds >= its cap
            bytes (first_cap for the first bucket, cap for the others)."""
            ### BEGIN SOLUTION
            buckets, current, size, limit = [], [], 0, first_cap
            for parameter in reversed(parameters):
                current.append(parameter)
                size += parameter.numel() * parameter.element_size()
                if size >= limit:
                    buckets.append(current)
                    current, size, limit = [], 0, cap
            if current:
                buckets.append(current)
            return buckets
            ### END SOLUTION


        class BucketedDDP(nn.Module):
            """DDP's gradient averaging: buckets in reverse registration order, a hook per parameter, one all_reduce
            per bucket, launched in order once all of its gradients are ready."""

            def __init__(self, module, bucket_cap_mb=None):
                super().__init__()
                self.module = module
                self.world_size = dist.get_world_size()
                parameters = [p for p in module.parameters() if p.requires_grad]
                ### BEGIN SOLUTION
                cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
                first_cap = 1024 * 1024 if bucket_cap_mb is None else cap
                self.buckets = assign_buckets(parameters, first_cap, cap)
                self.bucket_of = {id(p): k for k, bucket in enumerate(self.buckets) for p in bucket}
                self.missing = [len(bucket) for bucket in self.buckets]  # gradients each bucket still waits for
                self.next_bucket = 0
                self.ready = set()
                for parameter in parameters:
                    parameter.register_post_accumulate_grad_hook(self.gradient_ready)
                ### END SOLUTION

            def forward(self, *inputs, **kwargs):
                ### BEGIN SOLUTION
                if self.ready:  # the last backward marked gradients ready but did not reduce every bucket
                    raise RuntimeError(UNFINISHED)
                return self.module(*inputs, **kwargs)
                ### END SOLUTION

            def gradient_ready(self, parameter):
                """The post-accumulate-grad hook: parameter.grad is final for this backward."""
                ### BEGIN SOLUTION
                self.ready.add(id(parameter))
                self.missing[self.bucket_of[id(parameter)]] -= 1
                while self.next_bucket < len(self.buckets) and self.missing[self.next_bucket] == 0:
                    self.reduce(self.buckets[self.next_bucket])
                    self.next_bucket += 1
                if self.next_bucket == len(self.buckets):  # every bucket went: ready for the next backward
                    self.missing = [len(bucket) for bucket in self.buckets]
                    self.next_bucket = 0
                    self.ready = set()
                ### END SOLUTION

            def reduce(self, bucket):
                """One all_reduce for the whole bucket: flatten, divide by the world size, sum over ranks, copy back."""
                ### BEGIN SOLUTION
                flat = minitorch.cat([p.grad.reshape(-1) for p in bucket]) / self.world_size
                dist.all_reduce(flat)
                offset = 0
                for p in bucket:
                    p.grad.copy_(flat[offset:offset + p.numel()].reshape(p.shape))
                    offset += p.numel()
                ### END SOLUTION


        def ddp_report_of_mine(widths, world_size, bucket_cap_kb, batch_per_rank, seed):
            """What the check compares, for your BucketedDDP on world_size processes."""
            return ddp_report(BucketedDDP, widths, world_size, bucket_cap_kb, batch_per_rank, seed)
        ''',
        "ch12-ddp-buckets",
    ),
    tests(
        """
        check("ch12.ddp_buckets", ddp_report_of_mine)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch12.ddp_buckets", ddp_report_of_mine, [
            (np.array([4, 9, 8, 7, 5]), 3, 0.125, 2, 12700),
            (np.array([3, 600, 450, 6]), 2, 0.0, 1, 12701),
            (np.array([6, 10, 4]), 2, 64.0, 4, 12702),
        ])
        ### END HIDDEN TESTS
        """,
        "ch12-ddp-buckets-tests",
        points=3,
    ),
    md(
        """
        Your buckets at work: the same experiment, with the gradient that **one** process computes for the mean
        loss over the whole global batch beside it (the average of the ranks' gradients is exactly that, up to the
        rounding of float32 additions, because every rank has the same number of rows):
        """
    ),
    code(
        """
        from grading.library.ddp import build_model, global_batch

        widths, world, batch, seed = np.array([5, 16, 16, 3]), 2, 3, 1230
        try:
            buckets, calls, launched_ready, grads, refused = ddp_report_of_mine(widths, world, 0.5, batch, seed)
            model = build_model(widths, seed)
            inputs, targets = global_batch(widths, world, batch, seed)
            F.mse_loss(model(minitorch.tensor(inputs)), minitorch.tensor(targets)).backward()
            one_process = np.concatenate([p.grad.numpy().reshape(-1) for p in model.parameters()])
            names = [name for name, _ in model.named_parameters()]
            for k in range(int(buckets.max()) + 1):
                print(f"bucket {k}: {[name for name, b in zip(names, buckets) if b == k]}")
            print("all_reduce calls in one backward, per rank:", calls.tolist())
            print("largest difference between the ranks' gradients:", float(np.abs(grads - grads[0]).max()))
            print("largest difference from one process on the global batch:", float(np.abs(grads - one_process).max()))
            print("forward after a backward that left a parameter unused, refused with PyTorch's error:", refused == 1)
        except NotImplementedError:
            print("BucketedDDP is not written yet")
        """
    ),
    md(
        """
        ### Your library so far

        The pieces of your own minitorch, and whether each one is yours (it passes its public checks) or still
        minitorch's. Save this notebook before moving on: later chapters take your pieces from the saved notebooks.
        """
    ),
    code(
        """
        from grading.library import my_library

        my_library("12_multiple_devices")
        """
    ),
    md(
        """
        ## Summary

        * **Data parallelism**: the same model on every device, each device on a slice of the batch.
          `nn.DataParallel` does it in four steps per forward: **scatter** (cut like `chunk`, move each piece),
          **replicate** (differentiable copies of the weights), **parallel apply** (one thread per device),
          **gather** (concatenate on the output device).
        * Backward retraces the steps; `Broadcast`'s backward **sums** each weight's gradients from all replicas, so
          the original parameters receive exactly the single-device gradient of the whole batch, and training
          gives the same results up to rounding.
        * minitorch runs replicas on the CPU (`num_replicas=N`) to show the mechanism; on GPUs use `device_ids`
          (the model on `device_ids[0]`) and `output_device`. The `module.` prefix in the wrapper's `state_dict` is
          a classic trap.
        * Card 0 holds more than the others (gradients, optimizer state, gathered outputs), and a single process
          drives every GPU: that is why PyTorch recommends `DistributedDataParallel`, one process per GPU with
          gradients **averaged** by all-reduce during backward.
        * minitorch has it too: `python -m minitorch.distributed.run --nproc-per-node N script.py` starts the
          ranks (through MPI), `DistributedSampler` gives each its share of the data, and
          `DistributedDataParallel` launches one all-reduce per bucket of gradients while backward runs. On GPUs
          the same script uses `"nccl"`, whose ring all-reduce sends about twice the gradients per step, whatever
          the number of GPUs.

        Next: chapter 13 takes the same training code from minitorch to PyTorch. Run the last cell to see which
        exercises pass.
        """
    ),
    code(
        """
        summary("ch12")
        """
    ),
]

write("12_multiple_devices", cells)
