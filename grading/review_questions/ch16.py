"""Review questions of chapter 16: compilers (capture and guards, graph breaks, FX graphs, DCE, pointwise fusion)."""

from grading.review import choice, number

QUESTIONS = [
    choice(
        "Which line in a compiled function causes a graph break?",
        [
            "`y = x.sin() * 2`",
            "`if y.sum() > 0:` (a Python branch on a tensor's value)",
            "`z = minitorch.where(y > 0, y, -y)`",
            "`return self.fc(x).relu()`",
        ],
        "b",
        "A graph is one fixed list of ops. A branch on a tensor's value needs the value (bool() on a tensor), which "
        "exists only when the function runs, so the capture breaks there and explain() says why; where() computes "
        "both sides and picks per element, which a graph can hold.",
    ),
    number(
        "`f = minitorch.compile(g)` is called on float32 inputs of shapes (4, 8), (4, 8), (16, 8) and (4, 8), in that "
        "order. How many graphs does the capture compile?",
        2,
        "The first call compiles for (4, 8); the second passes its guards; (16, 8) fails the shape guard and "
        "compiles a second graph; the last call passes the first graph's guards again.",
    ),
    choice(
        "In a symbolically traced `forward`, what does `x.relu()` on a proxy become?",
        [
            "a call_function node whose target is minitorch.relu",
            "a call_method node whose target is 'relu'",
            "a call_module node",
            "nothing: relu is applied to the proxy's values",
        ],
        "b",
        "A tensor method is recorded as call_method with the method's name; minitorch.relu(x) would be a "
        "call_function, a submodule call a call_module. A proxy has no values.",
    ),
    number(
        "A traced forward(x) computes `a = x.relu()`, `b = a.sigmoid()`, `c = x + 1` and returns c. How many nodes "
        "does dead-code elimination leave in the graph, the placeholder and the output included?",
        3,
        "b is read by nothing, so it goes, and then a has no users either: x, c = x + 1 and the output stay. Walking "
        "the nodes backwards erases the whole dead chain in one pass.",
    ),
    choice(
        "In `t = x.tanh(); return t * t + t`, which nodes can a pointwise fusion pass put in one kernel?",
        [
            "tanh, mul and add together",
            "mul and add; tanh stays outside, since two nodes read its value",
            "none: fusion needs matrix products",
            "only tanh",
        ],
        "b",
        "A node joins the kernel of a node it reads only when it is that node's only user. t is read by the product "
        "and by the sum, so it must exist as a tensor; the product's only user is the sum, so the two share a kernel.",
    ),
    choice(
        "Where does most of compiled minitorch's gain come from on the chapter's small workloads?",
        [
            "faster matrix products",
            "less Python per op: one generated function per graph, fused kernels without intermediate tensors, a "
            "backward written ahead of time",
            "lower precision arithmetic",
            "running on several threads",
        ],
        "b",
        "Both run the same BLAS for the products, on one thread, in float32; at these sizes the per-op Python cost "
        "dominates, and that is what a compiler removes.",
    ),
]
