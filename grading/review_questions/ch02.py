"""Review questions of chapter 2: autograd (the graph, backward, accumulation, no_grad, gradcheck, the engine)."""

from grading.review import choice, number

QUESTIONS = [
    number(
        "`x = minitorch.tensor(3.0, requires_grad=True)`, `y = x**2 + 2*x`, `y.backward()`. What is `x.grad`?",
        8,
        "dy/dx = 2x + 2 = 8 at x = 3. backward applies the chain rule from y back to the leaf x and stores the result "
        "in x.grad.",
    ),
    number(
        "`x = minitorch.tensor(1.0, requires_grad=True)`; then twice: `(3 * x).backward()`. What is `x.grad` after "
        "the second call?",
        6,
        "backward *adds* into .grad: 3 + 3 = 6. Clear gradients between steps (x.grad = None, or "
        "optimizer.zero_grad()).",
    ),
    choice(
        "`a` has shape (3, 1) and `b` shape (1, 4), both requiring grad. After `(a * b).sum().backward()`, what is "
        "the shape of `a.grad`?",
        ["(3, 4)", "(3, 1)", "(1, 4)", "() (a scalar)"],
        "b",
        "A gradient always has its tensor's shape. The product broadcast a to (3, 4), so the gradient arriving there "
        "is (3, 4) and is summed over the stretched dimension back to (3, 1): the reduction you wrote as sum_to_shape.",
    ),
    choice(
        "Why does the engine visit the nodes in reverse topological order?",
        [
            "it is the order in which the nodes were created, which is faster to store",
            "a node's backward may run only after every gradient flowing into its output has been summed",
            "to visit the leaves first",
            "the order does not matter, only the number of visits",
        ],
        "b",
        "A node used twice receives two gradient contributions; the chain rule needs their sum before the node passes "
        "gradients on to its inputs. Reverse topological order guarantees every consumer has run first.",
    ),
    choice(
        "Several nodes have received all their gradients (they are ready). Which does PyTorch's engine on the CPU run "
        "next?",
        [
            "the one a depth-first walk from the root reaches first",
            "the one that became ready first",
            "the one created last in the forward pass: the highest sequence number",
            "the one with the fewest inputs",
        ],
        "c",
        "The ready queue is a priority queue on each node's sequence_nr, taken from a counter at creation, highest "
        "first; AccumulateGrad nodes have the largest number of all, so a leaf's .grad is written as soon as it is "
        "complete. The dependency counts decide when a node is ready; the sequence numbers, which ready node runs.",
    ),
    choice(
        "Where is `minitorch.no_grad()` the right tool?",
        [
            "inside a custom Function's forward",
            "for evaluation and for parameter updates, where nothing should be recorded",
            "to free the graph after backward",
            "to make backward faster",
        ],
        "b",
        "Under no_grad nothing is recorded: results have no grad_fn. An update `w -= lr * w.grad` must not become part "
        "of the next step's graph, and evaluation needs no graph at all. detach() is the per-tensor version.",
    ),
    choice(
        "Central differences estimate f'(x) by (f(x+h) - f(x-h)) / 2h, with an error proportional to h². Halving h "
        "(while rounding is still negligible) divides the error by about:",
        ["2", "4", "8", "it does not change"],
        "b",
        "The error is of order h², so halving h divides it by 2² = 4. Too small an h brings back rounding error, which "
        "is why gradcheck works in float64.",
    ),
]
