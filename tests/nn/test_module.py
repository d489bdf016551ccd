"""The Module system against PyTorch: registration, traversal, state_dict, hooks, repr, conversions.

The same architecture is built with minitorch and with PyTorch by one function that
receives the library (``build_net(lib)``): code written for one runs unchanged on the other.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minitorch
from minitorch import nn
from tests.support import require_torch


def build_net(lib):
    """A nested model using every container, a shared submodule, a repeated parameter and two kinds of buffer."""
    tnn = lib.nn

    class Net(tnn.Module):
        def __init__(self):
            super().__init__()
            self.features = tnn.Sequential(tnn.Linear(4, 8), tnn.ReLU(), tnn.Linear(8, 6))
            self.heads = tnn.ModuleList([tnn.Linear(6, 3), tnn.Linear(6, 3)])
            self.extras = tnn.ModuleDict({"scale": tnn.Linear(3, 3, bias=False), "act": tnn.Tanh()})
            self.gains = tnn.ParameterList([tnn.Parameter(lib.ones(3)), tnn.Parameter(lib.zeros(3))])
            self.offsets = tnn.ParameterDict({"b": tnn.Parameter(lib.zeros(3)), "a": tnn.Parameter(lib.ones(3))})
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("scratch", lib.ones(2), persistent=False)
            self.shared = self.heads[0]  # the same module under a second name
            self.alpha = self.gains[0]  # the same parameter under a second name

        def forward(self, x):
            hidden = self.features(x)
            out = self.heads[0](hidden) + self.heads[1](hidden)
            out = self.extras["act"](self.extras["scale"](out))
            return out * self.gains[0] + self.gains[1] + self.offsets["a"] + self.running

    return Net()


def torch_to_minitorch_state(state):
    return {key: minitorch.tensor(value.detach().numpy()) for key, value in state.items()}


@pytest.fixture
def torch():
    return require_torch()


def test_traversal_names_and_order_match_torch(torch):
    ours, theirs = build_net(minitorch), build_net(torch)
    pairs = [
        lambda m: [n for n, _ in m.named_parameters()],
        lambda m: [n for n, _ in m.named_parameters(remove_duplicate=False)],
        lambda m: [n for n, _ in m.named_parameters(prefix="model", recurse=False)],
        lambda m: [n for n, _ in m.named_buffers()],
        lambda m: [n for n, _ in m.named_children()],
        lambda m: [n for n, _ in m.named_modules()],
        lambda m: [n for n, _ in m.named_modules(remove_duplicate=False)],
        lambda m: [n for n, _ in m.features.named_modules(prefix="features")],
        lambda m: [type(x).__name__ for x in m.modules()],
        lambda m: [type(x).__name__ for x in m.children()],
        lambda m: [tuple(p.shape) for p in m.parameters()],
        lambda m: len(list(m.parameters(recurse=False))),
        lambda m: [tuple(b.shape) for b in m.buffers()],
        lambda m: list(m.state_dict().keys()),
        lambda m: list(m.features.state_dict(prefix="f.").keys()),
        lambda m: sorted(k for k in dir(m) if not k.startswith("_") and k not in dir(type(m))),
    ]
    for describe in pairs:
        assert describe(ours) == describe(theirs)


def test_parameters_are_shared_not_copied():
    net = build_net(minitorch)
    assert net.shared is net.heads[0]
    assert net.alpha is net.gains[0]
    assert sum(1 for _ in net.parameters()) == len({id(p) for p in net.parameters()})
    assert isinstance(net.features[0].weight, nn.Parameter)
    assert net.features[0].weight.requires_grad


def test_load_torch_state_dict_gives_same_outputs(torch):
    ours, theirs = build_net(minitorch).double(), build_net(torch).double()
    with torch.no_grad():
        for param in theirs.parameters():
            param.uniform_(-1, 1)
        theirs.running.uniform_(-1, 1)
    result = ours.load_state_dict(torch_to_minitorch_state(theirs.state_dict()))
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert repr(result) == "<All keys matched successfully>"
    x = np.random.default_rng(0).standard_normal((5, 4))
    expected = theirs(torch.from_numpy(x)).detach().numpy()
    actual = ours(minitorch.from_numpy(x)).detach().numpy()
    np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=1e-12)
    # The loaded values were copied into the existing parameters (same objects, same dtype).
    assert ours.features[0].weight.dtype == minitorch.float64
    np.testing.assert_array_equal(ours.running.numpy(), theirs.running.numpy())


def _error(callable_):
    with pytest.raises(Exception) as info:
        callable_()
    return type(info.value), str(info.value)


def _snapshot(module):
    return {key: value.detach().numpy().copy() for key, value in module.state_dict().items()}


@pytest.mark.parametrize("case", ["missing", "unexpected", "size", "all"])
def test_load_state_dict_errors_match_torch_and_leave_module_unchanged(torch, case):
    ours, theirs = build_net(minitorch), build_net(torch)
    state = dict(theirs.state_dict())
    donor = build_net(torch)
    for key, value in donor.state_dict().items():  # different values, so a partial copy would show
        state[key] = value + 1
    if case in ("missing", "all"):
        del state["heads.1.bias"]
        del state["running"]
    if case in ("unexpected", "all"):
        state["features.0.extra"] = torch.zeros(1)
        state["nothing.here"] = torch.zeros(1)
        state["top_level"] = torch.zeros(1)
    if case in ("size", "all"):
        state["features.2.weight"] = torch.zeros(6, 7)
        state["gains.1"] = torch.zeros(4)
    before = _snapshot(ours)
    their_error = _error(lambda: theirs.load_state_dict(state))
    our_error = _error(lambda: ours.load_state_dict(torch_to_minitorch_state(state)))
    assert our_error[0] is their_error[0] is RuntimeError
    assert our_error[1] == their_error[1].replace("torch.Size", "minitorch.Size")
    assert our_error[1].startswith("Error(s) in loading state_dict for Net:\n\t")
    after = _snapshot(ours)
    assert before.keys() == after.keys()
    for key in before:
        np.testing.assert_array_equal(after[key], before[key], err_msg=key)


def test_load_state_dict_not_strict_reports_keys_like_torch(torch):
    ours, theirs = build_net(minitorch), build_net(torch)
    state = dict(theirs.state_dict())
    del state["features.0.bias"]
    state["extras.scale.bias"] = torch.zeros(3)
    their_result = theirs.load_state_dict(state, strict=False)
    our_result = ours.load_state_dict(torch_to_minitorch_state(state), strict=False)
    assert our_result.missing_keys == their_result.missing_keys
    assert our_result.unexpected_keys == their_result.unexpected_keys
    assert repr(our_result) == repr(their_result)
    np.testing.assert_array_equal(ours.features[2].weight.detach().numpy(), theirs.features[2].weight.detach().numpy())


def test_load_state_dict_assign_replaces_tensors():
    net = nn.Linear(2, 3)
    weight = minitorch.ones(3, 2)
    old_weight = net.weight
    net.load_state_dict({"weight": weight, "bias": minitorch.zeros(3)}, assign=True)
    assert net.weight is not old_weight and isinstance(net.weight, nn.Parameter) and net.weight.requires_grad
    np.testing.assert_array_equal(net.weight.detach().numpy(), np.ones((3, 2)))


def test_load_state_dict_rejects_non_tensors_and_non_mappings(torch):
    theirs = torch.nn.Linear(2, 3)
    ours = nn.Linear(2, 3)
    assert _error(lambda: ours.load_state_dict([1, 2])) == _error(lambda: theirs.load_state_dict([1, 2]))
    state = {"weight": np.zeros((3, 2)), "bias": np.zeros(3)}
    assert _error(lambda: ours.load_state_dict(state)) == _error(lambda: theirs.load_state_dict(state))


def test_state_dict_shares_memory_and_detaches():
    net = nn.Linear(2, 3)
    state = net.state_dict()
    assert not state["weight"].requires_grad and type(state["weight"]) is minitorch.Tensor
    state["weight"].zero_()
    assert float(net.weight.detach().abs().sum()) == 0.0
    assert isinstance(net.state_dict(keep_vars=True)["weight"], nn.Parameter)


def test_extra_state_round_trip():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.count = 0

        def get_extra_state(self):
            return {"count": self.count}

        def set_extra_state(self, state):
            self.count = state["count"]

    source, target = Counter(), Counter()
    source.count = 7
    assert list(source.state_dict()) == ["_extra_state"]
    target.load_state_dict(source.state_dict())
    assert target.count == 7


# -- hooks ---------------------------------------------------------------------------------------
def _record_hooks(model, log, lib):
    names = {id(module): name or "root" for name, module in model.named_modules()}
    handles = []
    for module in model.modules():
        name = names[id(module)]

        def pre_hook(mod, args, name=name):
            log.append(("pre", name, [tuple(a.shape) for a in args]))

        def hook(mod, args, output, name=name):
            log.append(("post", name, tuple(output.shape), round(float(output.detach().sum()), 10)))

        handles.append(module.register_forward_pre_hook(pre_hook))
        handles.append(module.register_forward_hook(hook))
    return handles


def test_forward_hooks_fire_in_torch_order_with_same_arguments(torch):
    ours, theirs = build_net(minitorch).double(), build_net(torch).double()
    ours.load_state_dict(torch_to_minitorch_state(theirs.state_dict()))
    our_log, their_log = [], []
    our_handles = _record_hooks(ours, our_log, minitorch)
    _record_hooks(theirs, their_log, torch)
    x = np.random.default_rng(1).standard_normal((2, 4))
    ours(minitorch.from_numpy(x))
    theirs(torch.from_numpy(x))
    assert our_log == their_log
    for handle in our_handles:
        handle.remove()
    our_log.clear()
    ours(minitorch.from_numpy(x))
    assert our_log == []


def test_hooks_can_replace_inputs_and_outputs_and_see_kwargs(torch):
    def run(lib):
        class Scaled(lib.nn.Linear):
            def forward(self, input, scale=1.0):
                return super().forward(input) * scale

        layer = Scaled(3, 2).double()
        with lib.no_grad():
            layer.weight.copy_(lib.arange(6, dtype=lib.float64).reshape(2, 3))
            layer.bias.fill_(0.5)
        seen = []
        layer.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
        layer.register_forward_pre_hook(
            lambda m, args, kwargs: seen.append(sorted(kwargs)) or (args, {"scale": kwargs["scale"] * 10}),
            with_kwargs=True, prepend=True)
        layer.register_forward_hook(lambda m, args, output: output + 1)
        layer.register_forward_hook(lambda m, args, kwargs, output: seen.append(("kw", kwargs["scale"])),
                                    with_kwargs=True)
        output = layer(lib.ones(4, 3, dtype=lib.float64), scale=0.5)
        return output.detach().numpy(), seen

    ours, theirs = run(minitorch), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0])
    assert ours[1] == theirs[1]


def test_always_call_forward_hook_runs_when_forward_fails(torch):
    def run(lib):
        calls = []
        layer = lib.nn.Linear(3, 2)
        layer.register_forward_hook(lambda m, args, output: calls.append(output), always_call=True)
        with pytest.raises(RuntimeError):
            layer(lib.ones(2, 5))
        return calls

    assert run(minitorch) == run(torch) == [None]


def _backward_hook_run(lib, modify: bool):
    """A Sequential with hooks on a Linear, on the ReLU and on itself; returns everything the hooks saw."""
    tnn = lib.nn
    model = tnn.Sequential(tnn.Linear(3, 4), tnn.ReLU(), tnn.Linear(4, 2)).double()
    rng = np.random.default_rng(3)
    with lib.no_grad():
        for param in model.parameters():
            param.copy_(lib.from_numpy(rng.uniform(-1, 1, tuple(param.shape))))
    seen = []

    def grab(name):
        def hook(module, grad_input, grad_output):
            seen.append((name, [None if g is None else g.detach().numpy().copy() for g in grad_input],
                         [None if g is None else g.detach().numpy().copy() for g in grad_output]))
            if modify and name == "relu":
                return tuple(None if g is None else g * 3 for g in grad_input)
            return None
        return hook

    def pre_grab(module, grad_output):
        seen.append(("pre", [g.detach().numpy().copy() for g in grad_output]))
        return (grad_output[0] * 0.5,) if modify else None

    model[0].register_full_backward_hook(grab("first"))
    model[1].register_full_backward_hook(grab("relu"))
    model.register_full_backward_hook(grab("model"))
    model[2].register_full_backward_pre_hook(pre_grab)
    x = lib.from_numpy(rng.standard_normal((5, 3))).requires_grad_()
    output = model(x)
    output.backward(lib.from_numpy(rng.standard_normal((5, 2))))
    grads = [x.grad.numpy()] + [p.grad.numpy() for p in model.parameters()]
    return seen, grads


@pytest.mark.parametrize("modify", [False, True])
def test_full_backward_hooks_match_torch(torch, modify):
    ours, theirs = _backward_hook_run(minitorch, modify), _backward_hook_run(torch, modify)
    assert [entry[0] for entry in ours[0]] == [entry[0] for entry in theirs[0]]
    for our_entry, their_entry in zip(ours[0], theirs[0]):
        for our_part, their_part in zip(our_entry[1:], their_entry[1:]):
            assert len(our_part) == len(their_part)
            for a, b in zip(our_part, their_part):
                assert (a is None) == (b is None)
                if a is not None:
                    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


def test_full_backward_hook_with_non_tensor_and_frozen_inputs(torch):
    def run(lib):
        tnn = lib.nn

        class Mix(tnn.Module):
            def forward(self, a, scale, b):
                return a * scale + b * b, a.sum(), a * 3

        module = Mix()
        seen = []
        module.register_full_backward_hook(
            lambda m, gi, go: seen.append(([None if g is None else g.numpy().tolist() for g in gi],
                                           [None if g is None else g.numpy().tolist() for g in go]))
        )
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([3.0, 4.0], dtype=lib.float64)
        first, second, unused = module(a, 2.0, b)
        (first.sum() + 3 * second).backward()
        return seen, a.grad.numpy().tolist()

    assert run(minitorch) == run(torch)


def test_hook_handles_and_context_manager():
    layer = nn.Linear(2, 2)
    calls = []
    with layer.register_forward_hook(lambda m, a, o: calls.append(1)):
        layer(minitorch.ones(1, 2))
    layer(minitorch.ones(1, 2))
    assert calls == [1]


# -- repr ------------------------------------------------------------------------------------------
def test_repr_matches_torch(torch):
    ours, theirs = build_net(minitorch), build_net(torch)
    assert repr(ours) == repr(theirs).replace("torch.float", "minitorch.float")
    ours_list = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Linear(2, 3), nn.Linear(2, 3), nn.Tanh()])
    their_list = torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.ReLU(), torch.nn.Linear(2, 3),
                                      torch.nn.Linear(2, 3), torch.nn.Tanh()])
    assert repr(ours_list) == repr(their_list)
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())
    assert repr(nn.Sequential()) == repr(torch.nn.Sequential())
    nested = [lib.nn.Sequential(lib.nn.Sequential(lib.nn.Linear(1, 2), lib.nn.Flatten()), lib.nn.Unflatten(1, (2, 1)),
                                lib.nn.Identity()) for lib in (minitorch, torch)]
    assert repr(nested[0]) == repr(nested[1])
    assert repr(nn.Parameter(minitorch.tensor([1.0, 2.0]))) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0])))


def test_extra_repr_of_custom_module(torch):
    def make(lib):
        class Scale(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = lib.nn.Linear(1, 1)

            def extra_repr(self):
                return "factor=2\nmode=fast"

        return Scale()

    assert repr(make(minitorch)) == repr(make(torch))


# -- registration rules and errors -------------------------------------------------------------------
def test_attribute_registration_rules(torch):
    def scenario(lib):
        tnn = lib.nn
        module = tnn.Module()
        results = []
        module.weight = tnn.Parameter(lib.ones(2))
        module.child = tnn.Linear(1, 1)
        module.register_buffer("stats", lib.zeros(2))
        module.plain = lib.ones(1)  # a plain tensor: just an attribute
        results.append([n for n, _ in module.named_parameters()])
        results.append([n for n, _ in module.named_buffers()])
        module.child = tnn.Parameter(lib.ones(1))  # a parameter replaces the child of the same name
        results.append(([n for n, _ in module.named_parameters()], [n for n, _ in module.named_children()]))
        module.stats = lib.ones(3)  # assigning a tensor to a buffer name updates the buffer
        results.append(tuple(module.stats.shape))
        module.weight = None
        results.append([n for n, _ in module.named_parameters()])
        del module.stats
        results.append("stats" in dict(module.named_buffers()))
        module.kept = tnn.Buffer(lib.zeros(1), persistent=False)
        results.append((list(module.state_dict()), [n for n, _ in module.named_buffers()]))
        for attempt in (
            lambda: setattr(module, "child", lib.ones(1)),
            lambda: module.register_buffer("a.b", lib.ones(1)),
            lambda: module.register_buffer("", lib.ones(1)),
            lambda: module.register_buffer("plain", lib.ones(1)),
            lambda: module.register_buffer("x", [1.0]),
            lambda: module.register_buffer(3, lib.ones(1)),
            lambda: module.register_parameter("p", lib.ones(1)),
            lambda: module.register_parameter("q", tnn.Parameter(lib.ones(1)) * 2),
            lambda: module.add_module("m", 3),
            lambda: module.add_module("x.y", tnn.ReLU()),
            lambda: module.missing,
            lambda: module.get_submodule("child.nothing"),
            lambda: module.get_submodule("plain"),
            lambda: module.train("yes"),
            lambda: module.to(lib.int64),
            lambda: module(lib.ones(1)),
        ):
            error_type, message = _error(attempt)
            results.append((error_type.__name__, message.replace("minitorch.", "torch.")))
        return results

    ours, theirs = scenario(minitorch), scenario(torch)
    for a, b in zip(ours, theirs):
        assert a == b
    assert len(ours) == len(theirs)


def test_assignment_before_init_is_an_error(torch):
    def attempt(lib):
        class Broken(lib.nn.Module):
            def __init__(self):
                self.layer = lib.nn.Linear(1, 1)

        return _error(Broken)

    assert attempt(minitorch) == attempt(torch)


def test_get_submodule_parameter_buffer(torch):
    for lib in (minitorch, torch):
        net = build_net(lib)
        assert net.get_submodule("features.0") is net.features[0]
        assert net.get_submodule("") is net
        assert net.get_parameter("heads.1.bias") is net.heads[1].bias
        assert net.get_buffer("running") is net.running
    targets = ("features.1.weight", "running")
    our_errors = [_error(lambda t=t: build_net(minitorch).get_parameter(t)) for t in targets]
    their_errors = [_error(lambda t=t: build_net(torch).get_parameter(t)) for t in targets]
    assert our_errors == their_errors
    assert _error(lambda: build_net(minitorch).get_buffer("gains.0")) == _error(
        lambda: build_net(torch).get_buffer("gains.0"))


# -- modes, gradients, conversions --------------------------------------------------------------------
def test_train_eval_and_apply(torch):
    net = build_net(minitorch)
    assert net.training and net.features[1].training
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    visited = []
    net.apply(lambda m: visited.append(type(m).__name__))
    their_visited = []
    build_net(torch).apply(lambda m: their_visited.append(type(m).__name__))
    assert visited == their_visited


def test_zero_grad_and_requires_grad():
    net = nn.Linear(3, 2)
    net(minitorch.ones(4, 3)).sum().backward()
    assert net.weight.grad is not None
    net.zero_grad(set_to_none=False)
    assert float(net.weight.grad.abs().sum()) == 0.0 and net.weight.grad is not None
    net.zero_grad()
    assert net.weight.grad is None and net.bias.grad is None
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())
    assert net(minitorch.ones(1, 3)).grad_fn is None


def test_to_and_dtype_conversions_keep_parameter_identity():
    net = build_net(minitorch)
    net(minitorch.ones(2, 4)).sum().backward()
    weight = net.features[0].weight
    grad = weight.grad
    net.register_buffer("steps", minitorch.tensor(3))
    assert net.double() is net
    assert net.features[0].weight is weight and weight.dtype == minitorch.float64
    assert weight.grad is grad and grad.dtype == minitorch.float64
    assert net.running.dtype == minitorch.float64 and net.steps.dtype == minitorch.int64
    net.float()
    assert weight.dtype == minitorch.float32
    net.to(minitorch.float64)
    assert weight.dtype == minitorch.float64
    net.to("cpu", dtype=minitorch.float32)
    assert weight.dtype == minitorch.float32 and weight.device.type == "cpu"
    net.to(minitorch.zeros(1, dtype=minitorch.float64))
    assert weight.dtype == minitorch.float64
    net.half()
    assert weight.dtype == minitorch.float16
    net.type(minitorch.float32)
    assert weight.dtype == minitorch.float32 and net.steps.dtype == minitorch.float32
    net.cpu()
    assert weight.requires_grad and weight.is_leaf
    out = net(minitorch.ones(2, 4))
    assert out.dtype == minitorch.float32


def test_module_deepcopy_is_independent():
    net = build_net(minitorch)
    twin = copy.deepcopy(net)
    assert twin.shared is twin.heads[0] and twin.alpha is twin.gains[0]
    assert isinstance(twin.features[0].weight, nn.Parameter)
    with minitorch.no_grad():
        twin.features[0].weight.fill_(0)
    assert float(net.features[0].weight.abs().sum()) > 0


# -- containers -----------------------------------------------------------------------------------------
def test_sequential_indexing_slicing_and_editing(torch):
    def scenario(lib):
        tnn = lib.nn
        layers = [tnn.Linear(1, 1), tnn.ReLU(), tnn.Linear(1, 2), tnn.Tanh()]
        seq = tnn.Sequential(*layers)
        results = [len(seq), seq[-1] is layers[3], type(seq[1:3]).__name__, list(seq[1:3]._modules),
                   list(seq[::2]._modules), [m is layer for m, layer in zip(seq, layers)]]
        seq.append(tnn.Sigmoid())
        seq.insert(1, tnn.Identity())
        results.append(repr(seq))
        del seq[0]
        results.append(list(seq._modules))
        popped = seq.pop(1)
        results.append((type(popped).__name__, repr(seq)))
        seq[0] = tnn.Flatten()
        seq.extend([tnn.ReLU()])
        results.append(repr(seq))
        results.append(repr(seq + tnn.Sequential(tnn.ReLU())))
        results.append(repr(tnn.Sequential(tnn.ReLU()) * 2))
        named = tnn.Sequential(__import__("collections").OrderedDict([("first", tnn.ReLU()), ("second", tnn.Tanh())]))
        results.append((repr(named), list(named[1:]._modules)))
        for attempt in (lambda: seq[10], lambda: seq + 1, lambda: seq * 0):
            error_type, message = _error(attempt)
            results.append((error_type.__name__, message.replace("minitorch.", "torch.")))
        return results

    assert scenario(minitorch) == scenario(torch)


def test_sequential_forward_chains_layers(torch):
    ours = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1)).double()
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1)).double()
    ours.load_state_dict(torch_to_minitorch_state(theirs.state_dict()))
    x = np.random.default_rng(4).standard_normal((6, 3))
    np.testing.assert_allclose(ours(minitorch.from_numpy(x)).detach().numpy(),
                               theirs(torch.from_numpy(x)).detach().numpy(), rtol=1e-12)


def test_module_list_and_dict(torch):
    def scenario(lib):
        tnn = lib.nn
        modules = tnn.ModuleList([tnn.ReLU(), tnn.Tanh()])
        modules.append(tnn.Linear(1, 1))
        modules.extend([tnn.Sigmoid()])
        modules.insert(0, tnn.Identity())
        modules += [tnn.ReLU()]
        results = [len(modules), repr(modules), type(modules[1:3]).__name__, len(modules[::2])]
        del modules[1]
        results.append(list(modules._modules))
        modules[-1] = tnn.Tanh()
        results.append(repr(modules + tnn.ModuleList([tnn.ReLU()])))
        results.append(type(modules.pop(0)).__name__)
        results.append(_error(lambda: modules[9])[1])
        results.append(_error(lambda: modules.extend(3))[1])
        table = tnn.ModuleDict({"b": tnn.ReLU(), "a": tnn.Tanh()})
        table.update([("c", tnn.Sigmoid())])
        table["d"] = tnn.Identity()
        results.append((list(table), list(table.keys()), "a" in table, len(table), repr(table)))
        results.append(type(table.pop("b")).__name__)
        results.append([n for n, _ in table.named_children()])
        results.append(_error(lambda: table.update([("x",)]))[1])
        table.clear()
        results.append(len(table))
        return results

    assert scenario(minitorch) == scenario(torch)


def test_parameter_list_and_dict(torch):
    def scenario(lib):
        tnn = lib.nn
        params = tnn.ParameterList([lib.ones(2), tnn.Parameter(lib.zeros(3))])
        params.append(lib.ones(1, 2))
        params.extend([lib.zeros(2)])
        results = [len(params), [type(p).__name__ for p in params], [n for n, _ in params.named_parameters()],
                   len(params[1:]), [tuple(p.shape) for p in params[::2]], _error(lambda: params[7])[1],
                   _error(lambda: params())[1]]
        params[0] = lib.full((2,), 5.0)
        results.append(params[0].tolist())
        results.append(repr(params).replace("minitorch.", "torch."))
        table = tnn.ParameterDict({"w": lib.ones(2), "b": tnn.Parameter(lib.zeros(1))})
        table["c"] = lib.ones(3)
        table.update([("d", lib.ones(1))])
        results.append((list(table), [n for n, _ in table.named_parameters()], "w" in table, len(table)))
        results.append(repr(table))
        results.append(type(table.pop("w")).__name__)
        results.append((table.get("zzz", 3), list(table.setdefault("e", lib.ones(1)).shape)))
        results.append(list((table | tnn.ParameterDict({"z": lib.ones(1)})).keys()))
        results.append(_error(lambda: table[1])[1])
        table.clear()
        results.append(len(table))
        return results

    assert scenario(minitorch) == scenario(torch)


def test_parameter_basics(torch):
    data = minitorch.ones(2)
    param = nn.Parameter(data)
    assert param.requires_grad and isinstance(param, minitorch.Tensor)
    with minitorch.no_grad():
        data.add_(1)
    assert param.tolist() == [2.0, 2.0]  # shares memory with data
    assert not nn.Parameter(minitorch.ones(1), requires_grad=False).requires_grad
    assert tuple(nn.Parameter().shape) == (0,)
    with minitorch.no_grad():
        assert nn.Parameter(minitorch.ones(1)).requires_grad
    result = param * 2
    assert type(result) is minitorch.Tensor
    twin = copy.deepcopy(param)
    assert isinstance(twin, nn.Parameter) and twin.requires_grad and twin.tolist() == [2.0, 2.0]
    assert _error(lambda: nn.Parameter(minitorch.tensor([1, 2]))) == _error(
        lambda: torch.nn.Parameter(torch.tensor([1, 2])))


def test_module_without_forward_raises_like_torch(torch):
    assert _error(lambda: nn.Module()(1)) == _error(lambda: torch.nn.Module()(1))
    assert _error(lambda: nn.Module(3)) == _error(lambda: torch.nn.Module(3))
