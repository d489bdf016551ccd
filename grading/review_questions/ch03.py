"""Review questions of chapter 3: devices (where numbers live, copies, device-generic code, timing)."""

from grading.review import choice, number

QUESTIONS = [
    number(
        'How many bytes does `.to("cuda")` copy for a float32 tensor of shape (1000, 1000)?',
        4_000_000,
        "A copy moves numel · element_size bytes: 1,000,000 elements of 4 bytes. Its time is a fixed latency plus the "
        "bytes over the bandwidth of the link.",
    ),
    choice(
        "`a` is on the CPU and `b` on cuda:0. What does `a + b` do?",
        [
            "copies b to the CPU and adds there",
            "copies a to the GPU and adds there",
            "raises an error that names both devices",
            "adds on whichever device is faster",
        ],
        "c",
        "An operation runs where its inputs are, and never moves data behind your back: 'Expected all tensors to be on "
        "the same device, but found at least two devices, cpu and cuda:0'.",
    ),
    choice(
        '`t` is already on the CPU. What does `t.to("cpu")` return?',
        ["a copy of t", "t itself", "None", "a view of t with a new device"],
        "b",
        "`.to()` returns the tensor itself when nothing changes (device and dtype already right), so it is free to "
        "call. `model.to()` is different: it moves the model's parameters in place and returns the model.",
    ),
    choice(
        "Why call `minitorch.cuda.synchronize()` before each clock read when timing GPU work?",
        [
            "to warm up the GPU",
            "GPU work is launched asynchronously: without it the clock measures only the launch",
            "to copy the result back to the CPU",
            "to free GPU memory",
        ],
        "b",
        "A kernel launch returns at once while the GPU keeps working. Synchronize waits for the queued work, so the "
        "time read is the time the work took. Time after warm-up, too.",
    ),
    choice(
        "`t` is on a GPU. Which of these does NOT wait for the GPU and copy to the host?",
        ["t.item()", "print(t)", "t.numpy() (after .cpu())", "t * 2"],
        "d",
        "`t * 2` runs on the GPU, where t is, and returns at once. item(), print and numpy need the numbers on the "
        "host, so they wait for the queued work and copy: hidden copies in a training loop cost time.",
    ),
    choice(
        "How does one operation's code serve both the CPU and a GPU in minitorch?",
        [
            "each op has a CPU version and a GPU version",
            "each device has a backend whose array module (NumPy on the CPU, CuPy on a GPU) the op calls",
            "the GPU version is generated from the CPU version at import time",
            "GPU tensors are converted to NumPy arrays first",
        ],
        "b",
        "The op asks its inputs for their array module and calls it; NumPy and CuPy share an API, so one code path "
        "serves both (minitorch/_device.py decides the module of each device).",
    ),
]
