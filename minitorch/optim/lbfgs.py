"""L-BFGS: a quasi-Newton method that builds a curvature model from the last few steps.

Where gradient descent steps along ``-g``, Newton's method steps along ``-H^{-1} g`` (``H`` the
Hessian). L-BFGS never forms ``H``: it remembers the last ``history_size`` pairs
``s_k = x_{k+1} - x_k`` (a step) and ``y_k = g_{k+1} - g_k`` (the change of gradient it caused),
and the "two-loop recursion" multiplies ``g`` by an inverse-Hessian estimate built from them.
Each ``step(closure)`` runs up to ``max_iter`` such iterations, so the closure (which recomputes
the loss and its gradient) is called several times per step.

The algorithm, its stopping rules and the strong Wolfe line search follow PyTorch's
``torch/optim/lbfgs.py`` (itself a port of the Lua ``optim`` package) step by step, so both
libraries visit the same points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import minitorch

from .optimizer import Optimizer


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1``, ``g2``, in ``bounds``.

    With ``d1 = g1 + g2 - 3 (f1 - f2) / (x1 - x2)`` and ``d2 = sqrt(d1^2 - g1 g2)``, the minimum is at
    ``x2 - (x2 - x1) (g2 + d2 - d1) / (g2 - g1 + 2 d2)``; without a real ``d2``, the middle of the bounds.
    """
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = d2_square.sqrt()
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(objective, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step length ``t`` along ``d`` meeting the strong Wolfe conditions.

    Sufficient decrease: ``f(x + t d) <= f(x) + c1 t g.d``; curvature: ``|g(x + t d).d| <= c2 |g.d|``.
    First an interval that must contain such a ``t`` is bracketed (growing ``t`` by cubic
    extrapolation), then the bracket is shrunk ("zoom") by cubic interpolation. Returns the new
    loss, gradient, step and the number of function evaluations.
    """
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = objective(x, t, d)
    evaluations = 1
    gtd_new = g_new.dot(d)

    # bracket an interval containing a point satisfying the Wolfe criteria
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    iteration = 0
    while iteration < max_ls:
        if f_new > (f + c1 * t * gtd) or (iteration > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.clone()], [gtd_prev, gtd_new]
            break
        # extrapolate: a cubic step, between 1.01 and 10 times the current one
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        previous = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = previous, f_new, g_new.clone(), gtd_new
        f_new, g_new = objective(x, t, d)
        evaluations += 1
        gtd_new = g_new.dot(d)
        iteration += 1

    if iteration == max_ls:  # no bracket found within the budget
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point satisfies the conditions
    insufficient_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and iteration < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        # a point too close to an end of the bracket makes little progress: move it 10% inside
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insufficient_progress or t >= max(bracket) or t <= min(bracket):
                t = max(bracket) - eps if abs(t - max(bracket)) < abs(t - min(bracket)) else min(bracket) + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = objective(x, t, d)
        evaluations += 1
        gtd_new = g_new.dot(d)
        iteration += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low]:
            # not a sufficient decrease, or not below the low end: the new point is the high end
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new.clone(), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True  # the Wolfe conditions hold
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                # the old low end becomes the high end
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new.clone(), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evaluations


class LBFGS(Optimizer):
    r"""L-BFGS, as ``torch.optim.LBFGS``. ``step`` needs a closure that recomputes the loss.

    One ``step(closure)``, for up to ``max_iter`` iterations::

        g = gradient at x                          (closure, then the gradients flattened into one vector)
        stop if max|g| <= tolerance_grad
        y = g - g_prev,  s = t_prev * d_prev       the last step and what it did to the gradient
        remember (y, s, 1 / y.s) if y.s > 1e-10    at most history_size pairs; H_diag = y.s / y.y
        q = -g
        for the pairs, newest first:  a_i = rho_i s_i.q;  q -= a_i y_i
        d = H_diag * q
        for the pairs, oldest first:  b_i = rho_i y_i.d;  d += (a_i - b_i) s_i
        t = lr  (min(1, 1 / sum|g|) * lr on the very first iteration)
        stop if g.d > -tolerance_change            (not a descent direction)
        x = x + t d                                with line_search_fn="strong_wolfe", t from the line search
        stop when max_eval evaluations are used, or when the step or the change of loss is below tolerance_change

    Args:
        params: the tensors to optimize (one parameter group only, as in PyTorch).
        lr: learning rate (default 1).
        max_iter: iterations per ``step`` (default 20).
        max_eval: closure evaluations per ``step`` (default ``max_iter * 5 // 4``).
        tolerance_grad: stop when the largest gradient entry is this small (default 1e-7).
        tolerance_change: stop when the step or the change of loss is this small (default 1e-9).
        history_size: how many ``(s, y)`` pairs to remember (default 100).
        line_search_fn: None (fixed step ``lr``) or ``"strong_wolfe"``.

        >>> import minitorch
        >>> x = minitorch.tensor([1.5, -0.5], requires_grad=True)
        >>> optimizer = minitorch.optim.LBFGS([x], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     optimizer.zero_grad()
        ...     loss = ((x - minitorch.tensor([1.0, 2.0])) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> loss = optimizer.step(closure)
        >>> [round(v, 4) for v in x.tolist()]
        [1.0, 2.0]
    """

    def __init__(
        self,
        params: Iterable,
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if isinstance(lr, minitorch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {
            "lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
            "tolerance_change": tolerance_change, "history_size": history_size, "line_search_fn": line_search_fn,
        }
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one flat vector ------------------------------------------------------
    def _gather_flat_grad(self):
        pieces = [
            p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1) for p in self._params
        ]
        return minitorch.cat(pieces, 0)

    def _add_grad(self, step_size, update) -> None:
        """``x += step_size * update``, the flat ``update`` cut back into the parameters' shapes."""
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(update[offset : offset + numel].view_as(p), alpha=step_size)
            offset += numel

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data) -> None:
        for p, data in zip(self._params, params_data):
            p.copy_(data)

    def _directional_evaluate(self, closure, x, t, d):
        """Loss and flat gradient at ``x + t d``; the parameters are put back to ``x`` afterwards."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @minitorch.no_grad()
    def step(self, closure: Callable):  # noqa: C901 - one algorithm, kept in PyTorch's order
        """Run up to ``max_iter`` L-BFGS iterations; return the loss the closure gave first."""
        closure = minitorch.enable_grad()(closure)  # the closure always records, even inside no_grad
        group = self.param_groups[0]
        lr = float(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        # L-BFGS keeps one global state; like PyTorch it stores it under the first parameter
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        original_loss = closure()
        loss = float(original_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return original_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")  # noqa: N806 - the usual name of the initial inverse-Hessian scale
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # -- the direction: -g at first, then the two-loop recursion over the remembered pairs
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1  # noqa: N806
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)  # noqa: N806
                count = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = flat_grad.neg()
                for i in range(count - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-al[i])
                d = r = minitorch.mul(q, H_diag)
                for i in range(count):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=al[i] - be_i)

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # -- the step length
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction (any more)
                break

            evaluations = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def objective(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, evaluations = _strong_wolfe(
                    objective, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                optimal = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)  # a fixed step
                optimal = False
                if n_iter != max_iter:  # no need to evaluate after the last iteration
                    loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    optimal = flat_grad.abs().max() <= tolerance_grad
                    evaluations = 1
            current_evals += evaluations
            state["func_evals"] += evaluations

            # -- stopping rules
            if n_iter == max_iter or current_evals >= max_eval or optimal:
                break
            if d.mul(t).abs().max() <= tolerance_change:  # the step is negligible
                break
            if abs(loss - prev_loss) < tolerance_change:  # the loss no longer changes
                break

        state.update(
            d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag, prev_flat_grad=prev_flat_grad,
            prev_loss=prev_loss,
        )
        return original_loss
