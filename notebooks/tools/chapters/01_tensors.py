"""Chapter 1: tensors. Creation, dtypes and promotion, shapes and views, broadcasting, indexing,
the NumPy bridge, and why tensors beat Python lists."""

from author import code, md, solution, tests, write

cells = [
    md(
        """
        # Chapter 1 · Tensors

        Everything in deep learning is stored in tensors: images, words, weights, gradients. This chapter is
        about the object itself, before any learning happens.

        By the end of it you will be able to:

        * create tensors from data and with factory functions, and choose their **dtype**;
        * predict the dtype of a result (**type promotion**);
        * reshape tensors and tell a **view** (shared memory) from a copy, with **strides**;
        * use **broadcasting** to combine tensors of different shapes without loops;
        * select entries with **indexing**: slices, index tensors and boolean masks;
        * move data between NumPy and minitorch without copying (the **NumPy bridge**);
        * explain, with a measurement, why tensors and not Python lists;
        * build the machine yourself: a **strided tensor** on flat storage (views, `view`, `contiguous`,
          broadcasting as index arithmetic) and the **kernels** that compute on it (map, zip, reduce, a matrix
          product by blocks): the first pieces of **your own minitorch**, which later chapters build on.
        """
    ),
    code(
        """
        import sys
        import timeit

        import matplotlib.pyplot as plt
        import numpy as np

        import minitorch
        from grading import check, hint, randn, summary  # noqa: F401 (hint("<exercise>") shows hints, step by step)

        minitorch.manual_seed(0);
        """
    ),
    md(
        """
        ## 1. Creating tensors

        A tensor is a rectangular grid of numbers, all of the same type. Its **shape** says how many entries it has
        along each dimension: a vector of 3 numbers has shape `(3,)`, a 2×3 matrix `(2, 3)`, a batch of 8 RGB
        images of 32×32 pixels `(8, 3, 32, 32)`.

        The first way to make one is from (nested) Python lists with `minitorch.tensor`:
        """
    ),
    code(
        """
        vector = minitorch.tensor([1.0, 2.0, 3.0])
        matrix = minitorch.tensor([[1, 2, 3],
                                   [4, 5, 6]])
        scalar = minitorch.tensor(3.5)

        for name, t in [("vector", vector), ("matrix", matrix), ("scalar", scalar)]:
            print(f"{name:<7} shape={tuple(t.shape)!s:<7} ndim={t.ndim}  numel={t.numel()}  dtype={t.dtype}")
        """
    ),
    md(
        """
        More often you ask for a tensor of a given shape and let a **factory function** fill it. They take the
        shape as separate numbers (`zeros(2, 3)`) or as a tuple (`zeros((2, 3))`):
        """
    ),
    code(
        """
        print(minitorch.zeros(2, 3))
        print(minitorch.ones(2, dtype=minitorch.int64))
        print(minitorch.full((2, 2), 7.0))
        print(minitorch.arange(0, 10, 3))        # like range(): start, stop (excluded), step
        print(minitorch.linspace(0, 1, 5))       # 5 evenly spaced points, both ends included
        print(minitorch.eye(3))                  # the identity matrix
        """
    ),
    md(
        """
        Random tensors come from a generator you can seed, so that a run can be repeated exactly:
        `minitorch.rand` is uniform on [0, 1), `randn` standard normal, `randint` integers. The `*_like` functions
        copy the shape (and dtype, and device) of another tensor.
        """
    ),
    code(
        """
        minitorch.manual_seed(42)
        first = minitorch.randn(2, 3)
        minitorch.manual_seed(42)
        again = minitorch.randn(2, 3)
        print(first)
        print("same numbers after re-seeding:", bool((first == again).all()))
        print(minitorch.zeros_like(first).shape, minitorch.randint(0, 10, (5,)))
        """
    ),
    md(
        """
        ## 2. dtypes: what each entry is

        Every entry of a tensor has the same **dtype**. The common ones:

        | dtype | what | bytes per entry | typical use |
        |---|---|---|---|
        | `float32` | 32-bit floating point | 4 | **the default** for weights, activations, gradients |
        | `float64` | 64-bit floating point | 8 | precise checks (gradient checking) |
        | `float16` | 16-bit floating point | 2 | saving memory on GPUs |
        | `int64` | 64-bit integer | 8 | **the default** for integers: labels, indices |
        | `bool` | True/False | 1 | masks |

        `minitorch.tensor` infers the dtype from the data: Python floats give `float32` (the *default dtype*, not
        NumPy's `float64`), Python ints give `int64`, `True`/`False` give `bool`. `.to(dtype)` (or the shortcuts
        `.float()`, `.double()`, `.long()`, `.bool()`) converts, which makes a new tensor.
        """
    ),
    code(
        """
        print(minitorch.get_default_dtype())
        print(minitorch.tensor([1.5, 2.0]).dtype, minitorch.tensor([1, 2]).dtype, minitorch.tensor([True, False]).dtype)

        counts = minitorch.tensor([3, 1, 2])
        print(counts.float(), counts.to(minitorch.float64).dtype)
        print("bytes per entry:", counts.element_size(), "as int64;", counts.float().element_size(), "as float32")
        print(minitorch.tensor([2.7, -2.7]).long())   # converting to an integer type truncates toward zero
        """
    ),
    md(
        """
        ### Type promotion

        When an operation meets two dtypes, the result gets a common one, following PyTorch's rules:

        1. The *kind* decides first: `bool` < integers < floating point. An integer tensor plus a float gives a float.
        2. Within the same kind, a tensor that has dimensions wins over a Python number or a 0-dimensional tensor:
           a `float16` tensor times `2.5` stays `float16`, an `int32` vector plus `minitorch.tensor(5)` stays `int32`.
        3. Otherwise the wider type wins: `int32 + int64` is `int64`, `float32 + float64` is `float64`.
        4. True division `/` of integers gives the default float; `//` keeps integers.

        `minitorch.promote_types` and `minitorch.result_type` answer the question without computing anything;
        the rules live in `minitorch/_dtype.py`.
        """
    ),
    code(
        """
        int_vector = minitorch.tensor([1, 2, 3])
        examples = {
            "int64 vector + 1.5": int_vector + 1.5,
            "int64 vector + float32 vector": int_vector + minitorch.ones(3),
            "int32 vector + int64 vector": int_vector.to(minitorch.int32) + int_vector,
            "int32 vector + tensor(5) (0-dim int64)": int_vector.to(minitorch.int32) + minitorch.tensor(5),
            "float16 vector * 2.5": minitorch.ones(3, dtype=minitorch.float16) * 2.5,
            "float32 vector + float64 vector": minitorch.ones(3) + minitorch.ones(3, dtype=minitorch.float64),
            "int64 vector / 2": int_vector / 2,
            "int64 vector // 2": int_vector // 2,
            "bool vector + int64 vector": minitorch.tensor([True, False, True]) + int_vector,
        }
        for description, result in examples.items():
            print(f"{description:<40} -> {result.dtype}")

        print(minitorch.promote_types(minitorch.int32, minitorch.float16))
        """
    ),
    md(
        """
        One trap: an integer result that does not fit its dtype **wraps around** silently, as in C. A `uint8` (0-255)
        pixel of value 200 plus 100 is 44, not 300. Convert to a wider or floating type before arithmetic that can
        overflow.
        """
    ),
    code(
        """
        pixel = minitorch.tensor([200], dtype=minitorch.uint8)
        print(pixel + 100, "   versus", pixel.float() + 100)
        """
    ),
    md(
        """
        ## 3. Shapes, views and strides

        The numbers of a tensor sit in one flat block of memory. The shape, together with the **strides**, says
        how to read that block as a grid: `stride(d)` is how many entries to skip in memory to move one step along
        dimension `d`. A 3×4 matrix stored row after row has strides `(4, 1)`: next row = 4 entries further, next
        column = 1 entry further.

        Because of this, many shape changes need no copying at all: they make a **view**, a new tensor object that
        reads the *same memory* with a different shape or strides. `reshape`/`view`, `transpose`/`.T`/`permute`,
        `unsqueeze`/`squeeze`, `expand` and slicing all return views when they can.
        """
    ),
    code(
        """
        grid = minitorch.arange(12).reshape(3, 4)
        print(grid)
        print("shape", tuple(grid.shape), "strides", grid.stride(), "contiguous:", grid.is_contiguous())

        flipped = grid.T          # transpose: a view with the strides swapped
        print("transposed: shape", tuple(flipped.shape), "strides", flipped.stride(),
              "contiguous:", flipped.is_contiguous())
        print("same memory:", flipped.data_ptr() == grid.data_ptr())
        """
    ),
    md(
        """
        A view shares memory, so writing through it changes the original (and the other way round):
        """
    ),
    code(
        """
        as_rows = grid.view(2, 6)
        as_rows[0, 0] = 100
        print(grid)   # the 0 in the corner is now 100
        grid[0, 0] = 0
        """
    ),
    md(
        """
        `view` only works when the new shape can be read from the memory as it is laid out. The transposed grid's
        entries are not in row order in memory, so `view` refuses, with PyTorch's message. `reshape` does the same
        job but copies when it must; `.contiguous()` makes a row-ordered copy explicitly.
        """
    ),
    code(
        """
        try:
            flipped.view(12)
        except RuntimeError as error:
            print("RuntimeError:", error)

        flat = flipped.reshape(12)   # a copy here, because a view is impossible
        print(flat, " same memory as grid:", flat.data_ptr() == grid.data_ptr())
        """
    ),
    code(
        """
        batch = minitorch.zeros(8, 3, 32, 32)              # 8 images, 3 colour channels, 32x32 pixels
        print(batch.permute(0, 2, 3, 1).shape)             # channels last: (8, 32, 32, 3)
        print(batch.reshape(8, -1).shape)                   # -1: "whatever makes the count right" -> (8, 3072)
        print(batch.flatten(start_dim=1).shape)             # the same
        print(minitorch.zeros(3).unsqueeze(0).shape, minitorch.zeros(1, 3, 1).squeeze().shape)
        """
    ),
    md(
        """
        The shape ops are in `minitorch/ops/shape.py`: `View`, `Reshape`, `Permute`, `Expand`... An op whose
        result shares its input's memory says so with the class attribute `is_view = True`, so that the view and
        its base share one version counter: autograd uses it to notice when a value it saved for the backward pass has
        been changed in place, and refuses to compute a wrong gradient.

        ## 4. Broadcasting

        Operations on two tensors work entry by entry, so the shapes must agree. **Broadcasting** is the rule that
        lets them agree without copying data. Compare the shapes from the right:

        1. if one tensor has fewer dimensions, pretend it has extra dimensions of size 1 on the left;
        2. along each dimension, the sizes must be equal, or one of them must be 1;
        3. a size-1 dimension is stretched (repeated) to match the other.

        A column of shape `(3, 1)` plus a row of shape `(4,)`: the row becomes `(1, 4)`, both stretch to `(3, 4)`.
        """
    ),
    code(
        """
        column = minitorch.tensor([[0.0], [10.0], [20.0]])   # shape (3, 1)
        row = minitorch.tensor([1.0, 2.0, 3.0, 4.0])         # shape (4,)
        table = column + row
        print(tuple(column.shape), "+", tuple(row.shape), "->", tuple(table.shape))
        print(table)
        """
    ),
    md(
        """
        The picture shows what happened: darker cells are the values that exist in memory, pale cells are the
        same values *repeated* by broadcasting (no memory is used for them).
        """
    ),
    code(
        """
        def draw_grid(axis, values, title, real_rows, real_columns, color):
            rows, columns = values.shape
            for r in range(rows):
                for c in range(columns):
                    real = r < real_rows and c < real_columns
                    shade = 0.9 if real else 0.25
                    axis.add_patch(plt.Rectangle((c, rows - 1 - r), 0.95, 0.95, color=color, alpha=shade))
                    axis.text(c + 0.47, rows - 0.53 - r, f"{values[r, c]:g}", ha="center", va="center", fontsize=11)
            axis.set_xlim(-0.1, 4.1)
            axis.set_ylim(-0.1, 3.1)
            axis.set_aspect("equal")
            axis.axis("off")
            axis.set_title(title, fontsize=11)


        figure, axes = plt.subplots(1, 3, figsize=(11, 3))
        draw_grid(axes[0], column.expand(3, 4).numpy(), "column (3, 1), stretched to (3, 4)", 3, 1, "tab:blue")
        draw_grid(axes[1], row.expand(3, 4).numpy(), "row (4,) = (1, 4), stretched to (3, 4)", 1, 4, "tab:orange")
        draw_grid(axes[2], table.numpy(), "column + row: (3, 4)", 3, 4, "tab:green")
        plt.tight_layout()
        plt.show()
        """
    ),
    md(
        """
        The stretching is free because it is done with strides: `expand` gives a size-1 dimension the stride 0,
        so every step along it reads the same memory again.
        """
    ),
    code(
        """
        stretched = column.expand(3, 4)
        print("strides of the stretched column:", stretched.stride())   # (1, 0): along a row, the same entry
        """
    ),
    md(
        """
        Broadcasting is everywhere in practice: subtract the mean of each column from a data matrix
        (`x - x.mean(dim=0)`), add a bias to every row of a batch (`x @ w.T + b`), scale each image channel by its
        own factor. When the shapes cannot be matched, the error names the dimension that failed:
        """
    ),
    code(
        """
        data = minitorch.randn(5, 3)
        centred = data - data.mean(dim=0)                 # (5, 3) - (3,) -> (5, 3)
        print("column means after centring:", centred.mean(dim=0))

        try:
            minitorch.ones(5, 3) + minitorch.ones(5)      # (5, 3) + (5,): 3 and 5 disagree on the right
        except RuntimeError as error:
            print("RuntimeError:", error)
        print((minitorch.ones(5, 3) + minitorch.ones(5, 1)).shape)   # make it a column, and it works
        """
    ),
    md(
        """
        Broadcasting lives in one place in minitorch: NumPy stretches the arrays in each op's forward, and in the
        backward pass the engine sums gradients back to each input's shape (`minitorch/autograd/engine.py`), so no op
        has to think about it.

        ## 5. Indexing

        Three kinds of indexing, and the difference between them matters:

        * **Basic indexing** with integers, slices `start:stop:step`, `...` and `None` (a new size-1 dimension):
          the result is a **view**.
        * **Advanced indexing** with a list or an integer tensor of positions: picks entries in any order, repeats
          allowed; the result is a **copy**.
        * **Boolean masks**: a `bool` tensor of the same shape keeps the entries where it is `True`; the result is a
          1-D **copy**.
        """
    ),
    code(
        """
        grid = minitorch.arange(12).reshape(3, 4)
        print(grid)
        print("grid[1]        ", grid[1])            # a row
        print("grid[:, -1]    ", grid[:, -1])        # the last column
        print("grid[0, 1:3]   ", grid[0, 1:3])
        print("grid[::2, ::3] ", grid[::2, ::3].tolist())
        print("grid[..., 0]   ", grid[..., 0])       # ... stands for all the dimensions before
        print("grid[None].shape", tuple(grid[None].shape))
        """
    ),
    code(
        """
        print(grid[[2, 0, 0]])                                   # rows 2, 0 and 0 again
        print(grid[:, minitorch.tensor([3, 1])])                 # columns 3 and 1
        print(grid[minitorch.tensor([0, 1, 2]), minitorch.tensor([3, 2, 1])])   # pairs: (0,3), (1,2), (2,1)
        """
    ),
    code(
        """
        is_odd = grid % 2 == 1
        print(is_odd)
        print("odd entries:", grid[is_odd])
        """
    ),
    md(
        """
        View or copy? A view writes through to the original; a copy does not. Assigning *into* an indexed
        expression (`grid[mask] = 0`) always writes into `grid`, whatever the kind of index.
        """
    ),
    code(
        """
        first_row = grid[0]          # basic indexing: a view
        first_row[0] = -1
        picked = grid[[0]]           # advanced indexing: a copy
        picked[0, 1] = -2
        print(grid[0])               # the -1 arrived, the -2 did not

        grid[is_odd] = 0             # assignment through a mask writes into grid
        print(grid)
        """
    ),
    md(
        """
        Two functions replace many loops with masks: `minitorch.where(condition, a, b)` picks from `a` where the
        condition holds and from `b` elsewhere (broadcasting all three), and `masked_fill` writes one value where a
        mask is `True`.
        """
    ),
    code(
        """
        values = minitorch.tensor([-1.5, -0.3, 0.2, 0.8, 2.4, -0.7])
        print(minitorch.where(values > 0, values, minitorch.zeros(())))   # ReLU in one line
        print(values.masked_fill(values.abs() > 1, 0.0))                  # zero the large entries
        """
    ),
    md(
        """
        Indexing ops are in `minitorch/ops/indexing.py`: basic indexing goes straight to NumPy, which returns a view,
        and advanced indexing's backward scatters gradients back to the picked positions (adding up repeats).

        ## 6. The NumPy bridge

        A CPU tensor's numbers live in a NumPy array (`tensor.numpy()` returns it), so the two worlds can share
        memory:

        * `minitorch.from_numpy(array)` wraps an existing array **without copying**;
        * `tensor.numpy()` gives the array behind a CPU tensor, **without copying**;
        * `minitorch.tensor(array)` makes a **copy** (safe when you want independence).

        Shared memory means a write through one is visible through the other:
        """
    ),
    code(
        """
        array = np.arange(6, dtype=np.float32).reshape(2, 3)
        shared = minitorch.from_numpy(array)
        copied = minitorch.tensor(array)

        array[0, 0] = 100.0          # write through NumPy ...
        print(shared[0, 0].item(), copied[0, 0].item())      # ... read through the tensors: 100.0 and 0.0

        shared[1, 2] = -7.0          # write through the tensor ...
        print(array[1, 2])           # ... read through NumPy: -7.0
        print("shares memory:", np.shares_memory(shared.numpy(), array))
        """
    ),
    md(
        """
        `from_numpy` keeps NumPy's dtype: an array of Python floats is `float64` in NumPy, so the tensor is `float64`
        too, while `minitorch.tensor([1.0])` is `float32`. Two cases refuse to share: a tensor on a GPU (its memory
        is on the card, so call `.cpu()` first, which copies), and a tensor that requires gradients (call
        `.detach()` first, so that no change made in NumPy can go unnoticed by autograd):
        """
    ),
    code(
        """
        print(minitorch.from_numpy(np.array([1.0, 2.0])).dtype)

        weights = minitorch.ones(3, requires_grad=True)
        try:
            weights.numpy()
        except RuntimeError as error:
            print("RuntimeError:", error)
        print(weights.detach().numpy())
        """
    ),
    md(
        """
        ## 7. Why tensors and not Python lists?

        A Python list of numbers is a list of pointers to separate Python `float` objects, each 24 bytes plus an
        8-byte pointer; adding 1 to each means one interpreted loop step per number. A tensor is one block of raw
        numbers (4 bytes each in `float32`), and an operation on it is a single call into compiled code (NumPy's
        loops, or thousands of GPU threads) that runs over the whole block. Let us measure both, on a million numbers:
        """
    ),
    code(
        """
        n = 1_000_000
        as_list = [float(i) for i in range(n)]
        as_tensor = minitorch.arange(n, dtype=minitorch.float32)

        list_seconds = min(timeit.repeat(lambda: [2.0 * v + 1.0 for v in as_list], number=1, repeat=3))
        tensor_seconds = min(timeit.repeat(lambda: 2.0 * as_tensor + 1.0, number=1, repeat=3))

        list_bytes = sys.getsizeof(as_list) + sum(sys.getsizeof(v) for v in as_list[:1000]) * (n // 1000)
        tensor_bytes = as_tensor.numel() * as_tensor.element_size()
        print(f"2x + 1 on a list:   {1000 * list_seconds:7.1f} ms, about {list_bytes / 1e6:5.1f} MB")
        print(f"2x + 1 on a tensor: {1000 * tensor_seconds:7.1f} ms, {tensor_bytes / 1e6:5.1f} MB")
        print(f"the tensor is {list_seconds / tensor_seconds:.0f}x faster and {list_bytes / tensor_bytes:.0f}x smaller")
        """
    ),
    code(
        """
        figure, (time_axis, memory_axis) = plt.subplots(1, 2, figsize=(10, 2.6))
        milliseconds = [1000 * tensor_seconds, 1000 * list_seconds]
        megabytes = [tensor_bytes / 1e6, list_bytes / 1e6]
        for axis, amounts, unit in [(time_axis, milliseconds, "ms"), (memory_axis, megabytes, "MB")]:
            axis.barh(["tensor", "list"], amounts, color=["tab:green", "tab:gray"])
            for position, amount in enumerate(amounts):
                axis.text(amount, position, f" {amount:.3g} {unit}", va="center")
        time_axis.set_xscale("log")   # a log scale, or the tensor's bar would be too thin to see
        time_axis.set_xlim(milliseconds[0] / 10, 10 * milliseconds[1])
        time_axis.set_xlabel("time for 2x + 1 on 1,000,000 numbers (log scale)")
        memory_axis.set_xlim(right=1.3 * megabytes[1])
        memory_axis.set_xlabel("memory")
        plt.tight_layout()
        plt.show()
        """
    ),
    md(
        """
        Tensors also give you what lists cannot: a dtype you choose, shapes and broadcasting, devices (a GPU,
        chapter 3), and automatic gradients (chapter 2). The lesson for the rest of the course: **write operations on
        whole tensors, never loops over their entries**. The exercises below practise exactly that.

        ## 8. Exercises

        No loops over entries in these four: broadcasting, reductions and masks do the work.

        ### Exercise 1 · Pairwise distances

        `a` has shape `(n, d)` (n points in d dimensions), `b` has shape `(m, d)`. Return the `(n, m)` tensor of
        Euclidean distances, `distances[i, j] = sqrt(sum_k (a[i, k] - b[j, k])**2)`. Give `a` and `b` new size-1
        dimensions so that their difference broadcasts to `(n, m, d)`.
        """
    ),
    solution(
        '''
        def pairwise_distances(a, b):
            """Euclidean distance between every row of a (n, d) and every row of b (m, d): shape (n, m)."""
            ### BEGIN SOLUTION
            difference = a[:, None, :] - b[None, :, :]      # (n, 1, d) - (1, m, d) -> (n, m, d)
            return (difference**2).sum(dim=-1).sqrt()
            ### END SOLUTION
        ''',
        "pairwise_distances",
    ),
    tests(
        """
        check("ch01.pairwise_distances", pairwise_distances)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.pairwise_distances",
            pairwise_distances,
            [
                (randn(1, 3, seed=1100), randn(4, 3, seed=1101)),
                (randn(6, 1, seed=1102, scale=3.0), randn(2, 1, seed=1103)),
                (randn(7, 4, seed=1104), randn(7, 4, seed=1105)),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_pairwise_distances",
    ),
    md(
        """
        ### Exercise 2 · Masked mean

        `x` has shape `(n, d)` and `mask` is a `bool` tensor of the same shape, with at least one `True` in each row.
        Return the `(n,)` tensor whose entry `i` is the mean of the entries of row `i` where the mask is `True`
        (in the dtype of `x`). Padding in batches of sequences is handled exactly like this: padded positions are
        masked out of the average.
        """
    ),
    solution(
        '''
        def masked_mean(x, mask):
            """Mean of each row of x over the entries where mask is True: shape (n,)."""
            ### BEGIN SOLUTION
            kept = minitorch.where(mask, x, minitorch.zeros((), dtype=x.dtype))
            return kept.sum(dim=1) / mask.sum(dim=1)
            ### END SOLUTION
        ''',
        "masked_mean",
    ),
    tests(
        """
        check("ch01.masked_mean", masked_mean)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        hidden_mask = np.array([[True, True, True], [False, True, False], [True, False, False]])
        one_per_row = np.eye(4, dtype=bool)
        check_hidden(
            "ch01.masked_mean",
            masked_mean,
            [
                (randn(3, 3, seed=1200), hidden_mask),
                (randn(4, 4, seed=1201, scale=5.0), one_per_row),
                (randn(2, 5, seed=1202), np.ones((2, 5), dtype=bool)),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "test_masked_mean",
    ),
    md(
        """
        ### Exercise 3 · Standardise the columns

        `x` has shape `(n, d)`: n examples, d features. Return `x` with every column rescaled to mean 0 and standard
        deviation 1: subtract the column's mean, divide by the column's standard deviation. Use `x.std(dim=0)`,
        PyTorch's default (which divides by n − 1). This is the usual preprocessing step before training.
        """
    ),
    solution(
        '''
        def standardize_columns(x):
            """(x - column means) / column standard deviations, for x of shape (n, d)."""
            ### BEGIN SOLUTION
            return (x - x.mean(dim=0)) / x.std(dim=0)
            ### END SOLUTION
        ''',
        "standardize_columns",
    ),
    tests(
        """
        check("ch01.standardize_columns", standardize_columns)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.standardize_columns",
            standardize_columns,
            [(randn(5, 5, seed=1300, scale=10.0),), (randn(20, 2, seed=1301),), (randn(3, 6, seed=1302, scale=0.1),)],
        )
        ### END HIDDEN TESTS
        """,
        "test_standardize_columns",
    ),
    md(
        """
        ### Exercise 4 · One-hot encoding

        `labels` is an `int64` tensor of shape `(n,)` with values in `0 .. num_classes - 1`. Return the `float32`
        tensor of shape `(n, num_classes)` whose row `i` is all zeros except a 1 in column `labels[i]`. Compare a
        column of labels with a row of class numbers, and let broadcasting make the table.
        (`minitorch.nn.functional.one_hot` exists and returns `int64`; write it yourself here.)
        """
    ),
    solution(
        '''
        def one_hot(labels, num_classes):
            """Row i is 1.0 in column labels[i] and 0.0 elsewhere: float32, shape (n, num_classes)."""
            ### BEGIN SOLUTION
            return (labels[:, None] == minitorch.arange(num_classes)).float()
            ### END SOLUTION
        ''',
        "one_hot",
    ),
    tests(
        """
        check("ch01.one_hot", one_hot)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.one_hot",
            one_hot,
            [(np.array([1]), 2), (np.arange(5)[::-1].copy(), 5), (np.array([3, 3, 3, 0]), 6)],
        )
        ### END HIDDEN TESTS
        """,
        "test_one_hot",
    ),
    md(
        """
        ## 9. Build it: your own strided tensor

        So far NumPy kept the numbers and did the index arithmetic. Now you build that machine yourself: a tensor
        as PyTorch stores one, a flat **storage** (one 1-D array of numbers) read through

        * a **shape**: the size of each dimension;
        * **strides**: how many storage entries one step along each dimension moves;
        * a **storage offset**: where element `[0, 0, ...]` sits in the storage.

        The element at `index` sits at `storage[offset + index[0] * strides[0] + index[1] * strides[1] + ...]`.
        Every view is new values of these three, on the same storage: no number moves. PyTorch shows them as
        `.shape`, `.stride()` and `.storage_offset()`:
        """
    ),
    code(
        """
        numbers = minitorch.arange(24.0).reshape(2, 3, 4)
        picked = numbers.permute(2, 0, 1)[1:4:2, :, 1:]          # a slice of a permuted view: a view of a view
        base_address = numbers.data_ptr()
        print("shape", tuple(picked.shape), " strides", picked.stride(),
              " storage offset", (picked.data_ptr() - base_address) // picked.element_size(),
              " contiguous:", picked.is_contiguous())
        """
    ),
    md(
        """
        (minitorch has no `.storage_offset()` yet; the offset is the distance between the two tensors' addresses,
        `data_ptr()`, in elements.)

        Your `StridedTensor` below is the same machine. The constructor and `numpy()` are given; write the rest,
        one idea per method. Each method that makes a view returns a **new** `StridedTensor` on `self.storage`.

        * `contiguous_strides(shape)`: the strides of a tensor stored row after row;
        * `position(index)` (index to storage position) and `index(position)` (back, for a contiguous tensor);
        * `positions()`: the storage position of every element, as an integer array of the tensor's shape, with
          NumPy index arrays (no Python loop over elements);
        * `is_contiguous()`: PyTorch's rule (a dimension of size 1 is never stepped along, so its stride does not
          matter);
        * the views: `permute(*dims)`, `transpose(dim0, dim1)`, slicing `t[start:stop:step, ...]` (positive steps,
          as in PyTorch), `expand(*sizes)` (`-1` keeps a size; stretched and new dimensions get stride 0) and
          `as_strided(shape, strides, offset)`;
        * `view(*shape)` and `contiguous()`: checked by the second exercise below.

        The checks build a chain of views (permute, slice, transpose; `as_strided` then `expand`) on hidden shapes
        and compare each step's shape, strides, storage offset, `is_contiguous()` and values with minitorch's,
        whose strides the tests compare with PyTorch's. A failure names the step and the property.
        """
    ),
    solution(
        '''
        from grading.library.tensor import view_report, views_report

        VIEW_ERROR = (
            "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
            "contiguous subspaces). Use .reshape(...) instead."
        )


        def contiguous_strides(shape):
            """The strides of a tensor of `shape` stored row after row (the last dimension moves fastest)."""
            ### BEGIN SOLUTION
            strides, step = [], 1
            for size in reversed(shape):
                strides.append(step)
                step *= max(size, 1)
            return tuple(reversed(strides))
            ### END SOLUTION


        class StridedTensor:
            """A tensor as PyTorch stores one: a flat storage read through shape, strides and a storage offset."""

            def __init__(self, storage, shape, strides=None, offset=0):
                self.storage = storage                       # a 1-D NumPy array: the numbers, in memory order
                self.shape = tuple(int(size) for size in shape)
                self.strides = tuple(int(s) for s in strides) if strides is not None else contiguous_strides(self.shape)
                self.offset = int(offset)

            def numpy(self):
                """The values, as a NumPy array of this tensor's shape (read through positions())."""
                return self.storage[self.positions()]

            def position(self, index):
                """The storage position of the element at `index` (a tuple with one entry per dimension)."""
                ### BEGIN SOLUTION
                return self.offset + sum(i * s for i, s in zip(index, self.strides))
                ### END SOLUTION

            def index(self, position):
                """The index of the element at storage `position`, for a contiguous tensor."""
                ### BEGIN SOLUTION
                index, rest = [], position - self.offset
                for stride in contiguous_strides(self.shape):
                    index.append(rest // stride)
                    rest = rest % stride
                return tuple(index)
                ### END SOLUTION

            def positions(self):
                """The storage position of every element: an integer array of this tensor's shape."""
                ### BEGIN SOLUTION
                grids = np.indices(self.shape, dtype=np.int64)
                positions = np.full(self.shape, self.offset, dtype=np.int64)
                for grid, stride in zip(grids, self.strides):
                    positions += grid * stride
                return positions
                ### END SOLUTION

            def is_contiguous(self):
                """True when the elements sit row after row (PyTorch's rule: size-1 dimensions do not count)."""
                ### BEGIN SOLUTION
                expected = contiguous_strides(self.shape)
                pairs = zip(self.shape, self.strides, expected)
                return all(size == 1 or stride == want for size, stride, want in pairs)
                ### END SOLUTION

            def permute(self, *dims):
                """The view whose dimension i is this tensor's dimension dims[i]."""
                ### BEGIN SOLUTION
                shape = [self.shape[d] for d in dims]
                strides = [self.strides[d] for d in dims]
                return StridedTensor(self.storage, shape, strides, self.offset)
                ### END SOLUTION

            def transpose(self, dim0, dim1):
                """The view with dimensions dim0 and dim1 swapped."""
                ### BEGIN SOLUTION
                dims = list(range(len(self.shape)))
                dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
                return self.permute(*dims)
                ### END SOLUTION

            def __getitem__(self, slices):
                """t[a:b:c, d:e, ...]: `slices` is a tuple of slice objects, one per leading dimension."""
                ### BEGIN SOLUTION
                if not isinstance(slices, tuple):
                    slices = (slices,)
                shape, strides, offset = list(self.shape), list(self.strides), self.offset
                for d, cut in enumerate(slices):
                    start, stop, step = cut.indices(shape[d])
                    offset += start * strides[d]
                    shape[d] = len(range(start, stop, step))
                    strides[d] *= step
                return StridedTensor(self.storage, shape, strides, offset)
                ### END SOLUTION

            def expand(self, *sizes):
                """The view stretched to `sizes` (-1 keeps a size; new dimensions are added on the left), no copy."""
                ### BEGIN SOLUTION
                added = len(sizes) - len(self.shape)
                shape, strides = [], []
                for d, size in enumerate(sizes):
                    if d < added:
                        shape.append(size)
                        strides.append(0)
                        continue
                    old_size, old_stride = self.shape[d - added], self.strides[d - added]
                    if size in (-1, old_size):
                        shape.append(old_size)
                        strides.append(old_stride)
                    elif old_size == 1:
                        shape.append(size)
                        strides.append(0)
                    else:
                        raise RuntimeError(
                            f"The expanded size of the tensor ({size}) must match the existing size ({old_size}) at "
                            f"non-singleton dimension {d}.  Target sizes: {list(sizes)}.  "
                            f"Tensor sizes: {list(self.shape)}"
                        )
                return StridedTensor(self.storage, shape, strides, self.offset)
                ### END SOLUTION

            def as_strided(self, shape, strides, offset):
                """The view of the same storage with exactly this shape, these strides and this storage offset."""
                ### BEGIN SOLUTION
                return StridedTensor(self.storage, shape, strides, offset)
                ### END SOLUTION

            def view(self, *shape):
                """The same elements in the same order with a new shape, without copying (PyTorch's rule)."""
                ### BEGIN SOLUTION
                strides = [0] * len(shape)
                new_d = len(shape) - 1
                run_stride = self.strides[-1] if self.strides else 1
                old_count = new_count = 1
                for d in range(len(self.shape) - 1, -1, -1):
                    old_count *= self.shape[d]
                    run_ends = d == 0 or (self.shape[d - 1] != 1 and self.strides[d - 1] != old_count * run_stride)
                    if run_ends:
                        while new_d >= 0 and (new_count < old_count or shape[new_d] == 1):
                            strides[new_d] = new_count * run_stride
                            new_count *= shape[new_d]
                            new_d -= 1
                        if new_count != old_count:
                            raise RuntimeError(VIEW_ERROR)
                        if d > 0:
                            run_stride, old_count, new_count = self.strides[d - 1], 1, 1
                if new_d != -1:
                    raise RuntimeError(VIEW_ERROR)
                return StridedTensor(self.storage, shape, strides, self.offset)
                ### END SOLUTION

            def contiguous(self):
                """This tensor if it is contiguous, else a copy of its values in a fresh, row-ordered storage."""
                ### BEGIN SOLUTION
                if self.is_contiguous():
                    return self
                return StridedTensor(self.storage[self.positions()].reshape(-1), self.shape)
                ### END SOLUTION


        # What the two checks run on your class (already written).
        def strided_views_report(*case):
            return views_report(StridedTensor, *case)


        def view_and_contiguous_report(*case):
            return view_report(StridedTensor, *case)
        ''',
        "ch01-strided",
    ),
    tests(
        """
        check("ch01.strided_views", strided_views_report)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.strided_views",
            strided_views_report,
            [
                (randn(60, seed=1400), np.array([3, 4, 5]), np.array([2, 0, 1]),
                 np.array([[1, 5, 2], [0, 3, 1], [1, 4, 2]]),
                 np.array([2, 1, 3]), np.array([1, 0, 5]), 4, np.array([2, 2, 6, 3])),
                (randn(12, seed=1401), np.array([12]), np.array([0]), np.array([[2, 11, 3]]),
                 np.array([3, 1]), np.array([1, 4]), 0, np.array([3, 5])),
                (randn(48, seed=1402), np.array([2, 2, 3, 4]), np.array([0, 3, 2, 1]),
                 np.array([[0, 2, 1], [1, 4, 2], [0, 3, 2], [0, 1, 1]]), np.array([1, 2, 2]), np.array([1, 12, 1]), 5,
                 np.array([3, -1, 2, 2])),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "ch01-strided-tests",
        points=2,
    ),
    md(
        """
        ### view and contiguous

        `view(*shape)` must find strides that read the same elements in the same order with the new shape, and no
        copy. That is possible when the old dimensions fall into **runs** that are contiguous among themselves
        (dimension `d-1` continues the run of `d` when `strides[d-1] == strides[d] * shape[d]`) and each run is made
        of whole new dimensions. Otherwise PyTorch refuses with its message (your `VIEW_ERROR` above, word for word).
        `contiguous()` returns the tensor itself when it is contiguous, else a copy of its values, in index order,
        into a fresh storage. Both are methods of your class above; this check runs them on permuted views.
        """
    ),
    tests(
        """
        check("ch01.view_and_contiguous", view_and_contiguous_report)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.view_and_contiguous",
            view_and_contiguous_report,
            [
                (randn(40, seed=1500), np.array([2, 4, 5]), np.array([1, 0, 2]), 0, np.array([4, 2, 5])),
                (randn(40, seed=1501), np.array([2, 4, 5]), np.array([1, 0, 2]), 0, np.array([8, 5])),
                (randn(33, seed=1502), np.array([5, 6]), np.array([1, 0]), 3, np.array([2, 3, 5])),
                (randn(30, seed=1503), np.array([1, 3, 8]), np.array([2, 1, 0]), 6, np.array([4, 2, 3])),
                (randn(16, seed=1504), np.array([2, 2, 4]), np.array([0, 1, 2]), 0, np.array([16])),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "ch01-view-tests",
        points=2,
    ),
    md(
        """
        From here on the chapter uses *your* tensor wherever it can. `use("StridedTensor")` hands out your class
        if it passes its public checks, and minitorch's otherwise, saying so in one line; so does every later
        chapter that asks for a piece of your library. Your tensor and minitorch's, on a view of a view:
        """
    ),
    code(
        """
        from grading.library import my_library, use
        from grading.library.tensor import MinitorchStridedTensor

        Strided = use("StridedTensor")
        storage = np.arange(24.0)
        mine = "yours    " if Strided is not MinitorchStridedTensor else "(blank)  "
        for name, tensor_class in [(mine, Strided), ("minitorch", MinitorchStridedTensor)]:
            picked = tensor_class(storage, (2, 3, 4)).permute(2, 0, 1)[1:4:2, :, 1:]
            print(name, "shape", picked.shape, "strides", picked.strides, "offset", picked.offset,
                  "contiguous", picked.is_contiguous(), "values", picked.numpy().reshape(-1).tolist())
        """
    ),
    md(
        """
        ### Broadcasting, as index arithmetic

        Section 4's rule, written out. `broadcast_shapes(shape_a, shape_b)` gives the shape two tensors broadcast to,
        or raises PyTorch's `RuntimeError` ("The size of tensor a (3) must match the size of tensor b (4) at
        non-singleton dimension 1"). `broadcast_index(index, big_shape, shape)` says which element of a tensor of
        `shape` broadcasting reads at `index` of the big shape. Kernels need exactly this to read stretched inputs.
        """
    ),
    solution(
        '''
        from grading.library.tensor import broadcasting_report


        def broadcast_shapes(shape_a, shape_b):
            """The shape tensors of shapes shape_a and shape_b broadcast to (PyTorch's RuntimeError if none)."""
            ### BEGIN SOLUTION
            ndim = max(len(shape_a), len(shape_b))
            a = (1,) * (ndim - len(shape_a)) + tuple(shape_a)
            b = (1,) * (ndim - len(shape_b)) + tuple(shape_b)
            shape = []
            for d, (size_a, size_b) in enumerate(zip(a, b)):
                if size_a != size_b and 1 not in (size_a, size_b):
                    raise RuntimeError(
                        f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at "
                        f"non-singleton dimension {d}"
                    )
                shape.append(size_b if size_a == 1 else size_a)
            return tuple(shape)
            ### END SOLUTION


        def broadcast_index(index, big_shape, shape):
            """The index into a tensor of `shape` that broadcasting reads at `index` of `big_shape`."""
            ### BEGIN SOLUTION
            skipped = len(big_shape) - len(shape)
            return tuple(0 if size == 1 else index[skipped + d] for d, size in enumerate(shape))
            ### END SOLUTION


        # What the check runs (already written).
        def broadcasting_report_of_mine(shape_a, shape_b):
            return broadcasting_report(broadcast_shapes, broadcast_index, shape_a, shape_b)
        ''',
        "ch01-broadcast",
    ),
    tests(
        """
        check("ch01.broadcasting", broadcasting_report_of_mine)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.broadcasting",
            broadcasting_report_of_mine,
            [
                (np.array([2, 1, 3, 1]), np.array([4, 1, 5])),
                (np.array([1]), np.array([2, 2])),
                (np.array([6, 2]), np.array([3, 6, 1])),
                (np.array([2, 5, 3]), np.array([5, 4])),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "ch01-broadcast-tests",
    ),
    md(
        """
        ## 10. Build it: kernels on the storage

        A **kernel** computes every element of an output from elements of its inputs. Three shapes of kernel cover
        most of a tensor library: **map** (`out = fn(a)`, elementwise), **zip** (`out = fn(a, b)`, with broadcasting)
        and **reduce** (`out` = `fn` folded along one dimension of `a`). Each writes into an `out` tensor that the
        caller made, and `out` may itself be a strided view: write at out's positions, never at the ordinal.

        First the index arithmetic as a plain loop, one element at a time: for each ordinal `0, 1, 2, ...` of out,
        its index, then each input's index (through `broadcast_index`) and storage position. (A Python loop over
        elements is slow, and the course otherwise forbids it; here, on tiny tensors, the loop *is* the lesson.)
        `fn` is a NumPy function such as `np.add`; `reduce`'s `out` has size 1 along `dim` and already holds the start
        value to fold into (-inf for a max; the check starts a sum at 0.5). The checks hand your kernels minitorch's
        strided tensors (permuted, at an offset), so a kernel is judged on its own.
        """
    ),
    solution(
        '''
        import math

        from grading.library.tensor import MinitorchStridedTensor, kernels_report


        def index_of_ordinal(ordinal, shape):
            """The index of the `ordinal`-th element of `shape` in row-major order."""
            ### BEGIN SOLUTION
            index = []
            for size in reversed(shape):
                index.append(ordinal % size)
                ordinal //= size
            return tuple(reversed(index))
            ### END SOLUTION


        def position_in(tensor, index):
            """The storage position of `index` in a strided tensor (storage, shape, strides, offset)."""
            ### BEGIN SOLUTION
            return tensor.offset + sum(i * s for i, s in zip(index, tensor.strides))
            ### END SOLUTION


        def map_loop(fn, out, a):
            """out[i] = fn(a[i]) for every index i of out (a broadcast to out's shape)."""
            ### BEGIN SOLUTION
            for ordinal in range(math.prod(out.shape)):
                index = index_of_ordinal(ordinal, out.shape)
                value = a.storage[position_in(a, broadcast_index(index, out.shape, a.shape))]
                out.storage[position_in(out, index)] = fn(value)
            ### END SOLUTION


        def zip_loop(fn, out, a, b):
            """out[i] = fn(a[i], b[i]) for every index i of out (a and b broadcast to out's shape)."""
            ### BEGIN SOLUTION
            for ordinal in range(math.prod(out.shape)):
                index = index_of_ordinal(ordinal, out.shape)
                value_a = a.storage[position_in(a, broadcast_index(index, out.shape, a.shape))]
                value_b = b.storage[position_in(b, broadcast_index(index, out.shape, b.shape))]
                out.storage[position_in(out, index)] = fn(value_a, value_b)
            ### END SOLUTION


        def reduce_loop(fn, out, a, dim):
            """out (size 1 along dim, holding the start value) = fn folded over dimension dim of a."""
            ### BEGIN SOLUTION
            for ordinal in range(math.prod(out.shape)):
                index = list(index_of_ordinal(ordinal, out.shape))
                where = position_in(out, index)
                for k in range(a.shape[dim]):
                    index[dim] = k
                    out.storage[where] = fn(out.storage[where], a.storage[position_in(a, index)])
            ### END SOLUTION


        # What the check runs (already written).
        def kernels_loop_report(*case):
            return kernels_report(MinitorchStridedTensor, map_loop, zip_loop, reduce_loop, *case)
        ''',
        "ch01-kernels-loop",
    ),
    tests(
        """
        check("ch01.kernels_loop", kernels_loop_report)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.kernels_loop",
            kernels_loop_report,
            [
                (randn(40, seed=1600), np.array([3, 2, 5]), np.array([1, 2, 0]), 5,
                 randn(5, seed=1601), np.array([5, 1]), 2),
                (randn(8, seed=1602), np.array([2, 2, 2]), np.array([2, 1, 0]), 0,
                 randn(2, seed=1603), np.array([2, 1, 1]), 0),
                (randn(9, seed=1604), np.array([7]), np.array([0]), 2, randn(1, seed=1605), np.array([1]), 0),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "ch01-kernels-loop-tests",
    ),
    md(
        """
        ### The same kernels, vectorised

        The loop computes one position at a time. NumPy computes them all at once: an input's positions, read at
        every index of out's shape, are one integer array (its offset, plus for each of its own dimensions of size
        above 1 the matching `np.indices` grid times the stride). Then `storage[positions]` reads every value and
        `out.storage[positions] = values` writes every result, each in one step. These three are the kernels of
        your library. The check counts the single elements your kernels read or write one at a time
        (`storage[k]`): a vectorised kernel has none.
        """
    ),
    solution(
        '''
        # (imported again: a later chapter reruns this cell alone to take your kernels from the saved notebook)
        from grading.library.tensor import MinitorchStridedTensor, kernels_report  # noqa: F811


        def positions_at(tensor, shape):
            """The storage position of the element of `tensor` that broadcasting reads at every index of `shape`."""
            ### BEGIN SOLUTION
            skipped = len(shape) - len(tensor.shape)
            grids = np.indices(shape, dtype=np.int64)
            positions = np.full(shape, tensor.offset, dtype=np.int64)
            for d, (size, stride) in enumerate(zip(tensor.shape, tensor.strides)):
                if size != 1:
                    positions += grids[skipped + d] * stride
            return positions
            ### END SOLUTION


        def tensor_map(fn, out, a):
            """out[i] = fn(a[i]) for every index i of out, all at once (a broadcast to out's shape)."""
            ### BEGIN SOLUTION
            out.storage[positions_at(out, out.shape)] = fn(a.storage[positions_at(a, out.shape)])
            ### END SOLUTION


        def tensor_zip(fn, out, a, b):
            """out[i] = fn(a[i], b[i]) for every index i of out, all at once (a and b broadcast)."""
            ### BEGIN SOLUTION
            shape = out.shape
            values_a, values_b = a.storage[positions_at(a, shape)], b.storage[positions_at(b, shape)]
            out.storage[positions_at(out, shape)] = fn(values_a, values_b)
            ### END SOLUTION


        def tensor_reduce(fn, out, a, dim):
            """out (size 1 along dim, holding the start value) = fn folded over dimension dim of a, all at once."""
            ### BEGIN SOLUTION
            where = positions_at(out, out.shape)
            folded = fn.reduce(a.storage[positions_at(a, a.shape)], axis=dim, keepdims=True)
            out.storage[where] = fn(out.storage[where], folded)
            ### END SOLUTION


        # What the check runs (already written).
        def kernels_vectorised_report(*case):
            return kernels_report(MinitorchStridedTensor, tensor_map, tensor_zip, tensor_reduce, *case, vectorised=True)
        ''',
        "ch01-kernels-fast",
    ),
    tests(
        """
        check("ch01.kernels_vectorised", kernels_vectorised_report)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.kernels_vectorised",
            kernels_vectorised_report,
            [
                (randn(40, seed=1700), np.array([3, 2, 5]), np.array([1, 2, 0]), 5,
                 randn(5, seed=1701), np.array([5, 1]), 2),
                (randn(8, seed=1702), np.array([2, 2, 2]), np.array([2, 1, 0]), 0,
                 randn(2, seed=1703), np.array([2, 1, 1]), 0),
                (randn(70, seed=1704), np.array([4, 4, 4]), np.array([0, 2, 1]), 6,
                 randn(16, seed=1705), np.array([4, 1, 4]), 1),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "ch01-kernels-fast-tests",
    ),
    md(
        """
        How much the vectorised version saves, measured here on a transposed 60×50 input (your kernels if they pass
        their checks, minitorch's otherwise):
        """
    ),
    code(
        """
        fast_map = use("tensor_map")
        source = MinitorchStridedTensor(np.random.default_rng(0).standard_normal(3000), (50, 60)).transpose(0, 1)
        target = MinitorchStridedTensor(np.zeros(3000), (60, 50))
        try:
            map_loop(np.square, target, source)
        except NotImplementedError:
            print("write map_loop above (and run its cell) to time it against the vectorised map")
        else:
            loop_seconds = min(timeit.repeat(lambda: map_loop(np.square, target, source), number=1, repeat=3))
            fast_seconds = min(timeit.repeat(lambda: fast_map(np.square, target, source), number=1, repeat=3))
            print(f"map over 3000 elements: loop {1000 * loop_seconds:.2f} ms, "
                  f"vectorised {1000 * fast_seconds:.3f} ms, {loop_seconds / fast_seconds:.0f}x faster")
        """
    ),
    md(
        """
        ### A matrix product by blocks

        `matmul_blocks(a, b, block_size)` multiplies two strided 2-D tensors (`a` may be a transposed view) into a
        **new contiguous** tensor, one block at a time: the `(I, J)` block of the product is the sum over `K` of
        `a`'s `(I, K)` block times `b`'s `(K, J)` block. Fast matrix-product kernels (BLAS on a CPU, CUDA on a GPU)
        work this way, so that each block stays in a fast memory (a cache, a GPU's shared memory) while it is used
        many times. Make the result with `type(a)(storage, shape)`, so it is the same kind of tensor as `a`; the
        product of two small blocks may use `@` on NumPy arrays.
        """
    ),
    solution(
        '''
        from grading.library.tensor import MinitorchStridedTensor, matmul_report


        def matmul_blocks(a, b, block_size):
            """a (n, k) @ b (k, m) as a new contiguous tensor, computed block by block."""
            ### BEGIN SOLUTION
            (n, k), m = a.shape, b.shape[1]
            product = type(a)(np.zeros(n * m, dtype=a.storage.dtype), (n, m))
            rows, columns = np.indices(a.shape)
            a_positions = a.offset + rows * a.strides[0] + columns * a.strides[1]
            rows, columns = np.indices(b.shape)
            b_positions = b.offset + rows * b.strides[0] + columns * b.strides[1]
            grid = product.storage.reshape(n, m)  # a view of the product's storage
            for i in range(0, n, block_size):
                for j in range(0, m, block_size):
                    for p in range(0, k, block_size):
                        block_a = a.storage[a_positions[i:i + block_size, p:p + block_size]]
                        block_b = b.storage[b_positions[p:p + block_size, j:j + block_size]]
                        grid[i:i + block_size, j:j + block_size] += block_a @ block_b
            return product
            ### END SOLUTION


        # What the check runs (already written).
        def block_matmul_report(*case):
            return matmul_report(MinitorchStridedTensor, matmul_blocks, *case)
        ''',
        "ch01-matmul",
    ),
    tests(
        """
        check("ch01.block_matmul", block_matmul_report)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.block_matmul",
            block_matmul_report,
            [
                (randn(30, seed=1800), np.array([5, 6]), 0, randn(18, seed=1801), np.array([6, 3]), 4),
                (randn(24, seed=1802), np.array([3, 8]), 1, randn(15, seed=1803), np.array([3, 5]), 2),
                (randn(1, seed=1804), np.array([1, 1]), 0, randn(4, seed=1805), np.array([1, 4]), 1),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "ch01-matmul-tests",
    ),
    md(
        """
        ### On a GPU: an elementwise kernel of your own

        A GPU runs a kernel as thousands of threads, and in an **elementwise** kernel each thread computes one element
        of the output: its index `i` is turned into a position in every input (through the strides and broadcasting,
        the index math of `tensor_zip` above), the thread reads those elements, computes, and writes its element.
        CuPy writes that index math for you: a `cupy.ElementwiseKernel(in_params, out_params, body, name)` takes
        the parameters as `"type name"` pairs (a one-letter type such as `T` is a **placeholder**, bound to the dtype
        of the array passed for it, so one kernel serves float32 and float64), and a body in CUDA C in which each
        parameter's name stands for **this thread's element** of it. CuPy broadcasts the inputs, makes the output
        (or takes the one you pass after the inputs) and compiles the body once per dtype.

        Write `bias_gelu_kernel(cupy)`: it returns an `ElementwiseKernel` computing `y = gelu(x + bias)` with the tanh
        approximation, `gelu(v) = 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3)))` (what
        `F.gelu(..., approximate="tanh")` computes), with `bias` broadcast over `x`. Adding the bias inside the
        kernel **fuses** two operations: `x + bias` is never written to memory and read back, which is why libraries
        fuse them (a GPU is usually limited by memory traffic, not arithmetic, on such operations).

        **Where there is no GPU** (the cell after the check says which), your kernel runs on a **stand-in** with
        CuPy's interface (`grading/library/elementwise.py`). It follows CuPy's rules for everything around the body:
        parameters and placeholders, its `"Type is mismatched"` error for an array of another dtype than a fixed type,
        broadcasting, the output made or passed in. It runs the body by **interpreting a small subset of CUDA C** with
        NumPy, for all elements at once: statements `name = expression;` and `T name = expression;`, arithmetic,
        comparisons, `c ? a : b`, casts and the usual math functions (`exp`, `tanh`, `sqrt`, `pow`, ...). Evaluating
        every element at once gives what the threads give, because each thread computes its own element from its own
        inputs. A body outside that subset (`if`, loops) is refused with a message saying so: a real GPU compiles all
        of CUDA C, and the stand-in does not pretend to. It checks what the kernel computes, not how fast it runs.
        `hint("ch01.gpu_kernel")` gives hints step by step.
        """
    ),
    solution(
        '''
        from grading.library import elementwise

        GPU = elementwise.gpu()  # CuPy on a machine with a GPU, else the stand-in (the cell after the check says which)


        def bias_gelu_kernel(cupy):
            """An ElementwiseKernel computing gelu_tanh(x + bias) for float32 or float64, bias broadcast over x."""
            ### BEGIN SOLUTION
            return cupy.ElementwiseKernel(
                "T x, T bias",
                "T y",
                "T v = x + bias; y = 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)))",
                "bias_gelu",
            )
            ### END SOLUTION


        # What the check runs (already written): your kernel on device copies of x (transposed when asked) and bias.
        def gpu_kernel_report(x, transpose, bias, with_out):
            return elementwise.kernel_report(bias_gelu_kernel, GPU, x, transpose, bias, with_out)
        ''',
        "ch01-gpu-kernel",
    ),
    tests(
        """
        check("ch01.gpu_kernel", gpu_kernel_report)
        ### BEGIN HIDDEN TESTS
        from grading import check_hidden  # noqa: E402 (here, not at the top: the learner's edition has no hidden block)

        check_hidden(
            "ch01.gpu_kernel",
            gpu_kernel_report,
            [
                (randn(1, 7, seed=1900), 0, randn(7, seed=1901), 0),
                (randn(3, 2, 4, seed=1902, dtype="float64"), 1, randn(3, seed=1903, dtype="float64"), 1),
                (randn(6, 5, seed=1904, scale=4.0), 0, randn(1, seed=1905), 0),
            ],
        )
        ### END HIDDEN TESTS
        """,
        "ch01-gpu-kernel-tests",
    ),
    code(
        """
        # Your kernel on a batch of activations, next to minitorch's F.gelu on the CPU.
        print(elementwise.which(GPU))
        activations = np.random.default_rng(2).standard_normal((256, 64)).astype(np.float32)
        bias = np.random.default_rng(3).standard_normal(64).astype(np.float32)
        expected = minitorch.nn.functional.gelu(minitorch.tensor(activations) + minitorch.tensor(bias),
                                                approximate="tanh").numpy()
        try:
            kernel = bias_gelu_kernel(GPU)
            mine = GPU.asnumpy(kernel(GPU.asarray(activations), GPU.asarray(bias)))
            print(f"{mine.shape} {mine.dtype}: largest difference from F.gelu(x + bias): "
                  f"{float(np.abs(mine - expected).max()):.1e}")
        except NotImplementedError:
            print("write bias_gelu_kernel above (and run its cell), then run this cell again")
        """
    ),
    md(
        """
        ### The pieces add up

        A linear layer's forward pass, `x @ w + b`, on nothing but your library: your tensor holds the numbers,
        `matmul_blocks` multiplies, `tensor_zip` adds the bias with broadcasting and `tensor_reduce` sums the rows.
        Each piece is yours if it passes its checks and minitorch's otherwise (the lines below say which); the
        last line compares with minitorch's own `x @ w + b`.
        """
    ),
    code(
        """
        Tensor = use("StridedTensor")
        my_matmul, my_zip, my_reduce = use("matmul_blocks"), use("tensor_zip"), use("tensor_reduce")

        rng = np.random.default_rng(1)
        x_values, w_values, b_values = rng.standard_normal((4, 3)), rng.standard_normal((5, 3)), rng.standard_normal(5)
        x = Tensor(x_values.reshape(-1).copy(), (4, 3))
        w = Tensor(w_values.reshape(-1).copy(), (5, 3)).transpose(0, 1)       # (3, 5): a transposed view
        b = Tensor(b_values.copy(), (5,))
        product = my_matmul(x, w, 2)
        layer = Tensor(np.zeros(20), (4, 5))
        my_zip(np.add, layer, product, b)
        row_sums = Tensor(np.zeros(4), (4, 1))
        my_reduce(np.add, row_sums, layer, 1)

        expected = minitorch.tensor(x_values) @ minitorch.tensor(w_values).T + minitorch.tensor(b_values)
        print("largest difference from minitorch's x @ w.T + b:", float(np.abs(layer.numpy() - expected.numpy()).max()))
        print("row sums:", row_sums.numpy().reshape(-1).round(4).tolist())
        """
    ),
    md(
        """
        ### Your library so far

        Every chapter ends with this cell: the pieces of your own minitorch, and whether each one is yours (it
        passes its public checks) or still minitorch's. Later chapters take your pieces from this notebook once it
        is saved (`use("StridedTensor")`), so save it before moving on.
        """
    ),
    code(
        """
        my_library("01_tensors")
        """
    ),
    md(
        """
        ## Summary

        * A tensor is a grid of numbers with a **shape**, a **dtype** (default `float32` for floats, `int64` for
          integers) and a **device**. Make one from data (`minitorch.tensor`) or with a factory (`zeros`, `arange`,
          `randn`, ...).
        * Mixed dtypes are **promoted**: kind first (bool < integer < float), then dimensioned tensors over numbers,
          then the wider type. Integer overflow wraps around.
        * **Views** share memory; `view`, `transpose`, `permute`, `expand` and basic slicing make views, described by
          **strides**. `reshape` copies when a view is impossible.
        * **Broadcasting** aligns shapes from the right and stretches size-1 dimensions, with stride 0 and no copy.
        * **Indexing**: slices give views; index tensors and boolean masks give copies; assigning through any index
          writes into the original.
        * **The NumPy bridge**: `from_numpy` and `.numpy()` share memory, `minitorch.tensor(array)` copies.
        * Whole-tensor operations are orders of magnitude faster and smaller than Python lists: never loop over entries.
        * You built the machine: a **strided tensor** is a flat storage plus shape, strides and a storage offset;
          every view is new values of those three; `view` works when the old dimensions form contiguous runs of
          whole new dimensions; kernels turn indices into storage positions (one at a time in a loop, or all at
          once with NumPy index arrays); a matrix product works block by block. These are the first pieces of your
          own minitorch (`use("StridedTensor")`, `my_library(...)`).

        Where to read more: `minitorch/_tensor.py` (the Tensor class), `minitorch/_dtype.py` (promotion),
        `minitorch/_creation.py` (factories), `minitorch/ops/shape.py` and `minitorch/ops/indexing.py`.

        Next, **chapter 2**: autograd, how every one of these operations also knows its derivative.
        """
    ),
    code(
        """
        summary("ch01")
        """
    ),
]

if __name__ == "__main__":
    write("01_tensors", cells)
