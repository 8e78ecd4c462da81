"""Proof of equivalence for CL003's fix after the whole-keeping ops (rules/accessors.toml [views]):
`torch.fliplr(kb).float()[loc]` -> `torch.fliplr(kb)[loc].float()`.

The op is the cast's receiver, so it runs on the stored dtype before and after the fix; what the
fix changes is that the gather runs on the op's result in the stored dtype and the cast on the
gathered rows. For every op family that can be the receiver of a default (safe) CL003 fix, one
receiver per spelling (method, torch function, F.pad, einops) is fixed in three forms - `.float()`
then `[loc]`, a chain `.to(torch.bfloat16)` then `.index_select`, a variable gathered twice - and
the original and fixed modules are driven on the fake torch (tests/faketorch, whose ops are the
ones of tests/faketorch/reorder.py, checked against real torch below) with an FP8 pool and with a
bfloat16 pool (where `.to(torch.bfloat16)` is the tensor itself): every result, exception and the
pool after each call must be the same, and the original must not raise (no proof by two equal
failures). With CPU torch installed the same pairs run on real torch too (FP8 pools on CPU, where
torch 2.13 has no FP8 kernel for some flips: there both raise the same).

Where it would not be equivalent - a cast before the op moved past it, so that the op runs on the
stored dtype only after the fix (FP8 `flip` of the last dimension has no CPU kernel) - the codemod
has no safe fix: tested at the end.
"""

from __future__ import annotations

import types

import pytest

from castlint.fixes import FixOptions, fix_source
from castlint.tables import load_tables
from faketorch import make_torch
from faketorch.harness import Env, execute, same_behaviour

TABLES = load_tables()

# family -> receivers of the pool `kb` (24 tokens, 1 head, 576 wide): each keeps every token on dim 0
RECEIVERS = {
    "flip": ["kb.flip(0)", "torch.flip(kb, (0, 2))", "torch.fliplr(kb)", "torch.flipud(kb)", "kb.fliplr()"],
    "roll": ["torch.roll(kb, 3, 0)", "kb.roll(-5)", "kb.roll((1, 7), (0, 2))"],
    "rot90": ["torch.rot90(kb, 2, (0, 2))", "kb.rot90(1, (1, 2))", "kb.rot90(-1, (2, 1))"],
    "tile": ["kb.tile(2, 1, 1)", "torch.tile(kb, (1, 2))", "kb.repeat(1, 2, 1)"],
    "conj": ["kb.resolve_conj()", "torch.resolve_neg(kb)", "torch.conj(kb)", "kb.conj()"],
    "atleast": ["torch.atleast_3d(kb)", "torch.atleast_2d(kb)", "torch.atleast_3d(kb[:, 0])"],
    "dim_moves": ["torch.moveaxis(kb, 2, 1)", "kb.movedim(1, 2)", "kb.swapaxes(1, 2)", "torch.swapdims(kb, 1, 2)"],
    "attributes": ["kb.mT", "kb[:, 0].T", "kb.mH"],
    "repeat_interleave": ["kb.repeat_interleave(2, dim=1)", "torch.repeat_interleave(kb, 2, dim=0)"],
    "clone_detach": ["torch.clone(kb)", "torch.detach(kb)", "kb.clone()", "kb.detach()"],
    "unflatten": ["kb.unflatten(2, (8, 72))", "torch.unflatten(kb, 2, (2, -1))"],
    "pad": ["F.pad(kb, (0, 64))", "F.pad(kb, (1, 1), value=0.5)", "torch.constant_pad_nd(kb, (0, 0, 0, 1))"],
    "copies": [
        "torch.permute_copy(kb, (0, 2, 1))",
        "torch.transpose_copy(kb, 1, 2)",
        "torch.view_copy(kb, (24, 576))",
        "torch.unsqueeze_copy(kb, 1)",
        "torch.squeeze_copy(kb, 1)",
        "torch.t_copy(kb[:, 0]).t()",
        "torch.detach_copy(kb)",
        "torch.alias_copy(kb)",
        "torch.expand_copy(kb, (24, 2, 576))",
    ],
    "joins": ["torch.column_stack([kb, kb])", "torch.row_stack([kb, kb])", "torch.block_diag(kb[:, 0], kb[:, 0])"],
    "splits": [
        "torch.hsplit(kb[:, 0], 2)[0]",
        "kb.dsplit(2)[1]",
        "kb.vsplit(1)[0]",
        "kb.unsafe_split(288, 2)[0]",
        "torch.unsafe_chunk(kb, 2, 2)[1]",
        "kb.split_with_sizes([512, 64], -1)[0]",
        "torch.unsafe_split_with_sizes(kb, [512, 64], 2)[1]",
    ],
    "einops": ['einops.pack([kb, kb], "n h *")[0]', 'einops.unpack(kb, [[512], [64]], "n h *")[0]'],
    # explicit slice objects ([views] slice_constructors): the slice they spell
    "slice_objects": ["kb[slice(None)]", "kb[slice(None, None), 0]", "kb[slice(0, kb.shape[0])]"],
    # full extents written with None or the empty tuple (dataflow slice_elements)
    "none_extents": ["kb[()]", "kb[0:None]", "kb[None:None, 0]", "kb[:None, :, :64]"],
    # windows ([views] window_methods, window_functions) that skip no token, or along a later dimension
    "windows": ["kb.unfold(0, 1, 1)", "kb.unfold(2, 64, 64)", "torch.unfold_copy(kb, 2, 64, 64)"],
    # einsum over one operand, its output a permutation ([views] einsum_functions)
    "einsum": ['torch.einsum("thd->tdh", kb)', 'torch.einsum("thd->thd", [kb])', 'torch.einsum("t h d -> t d h", kb)'],
    # copies of views over the full extent ([views] narrow_methods, narrow_functions, tuple_functions)
    "narrow_copy": [
        "kb.narrow_copy(2, 0, 64)",
        "torch.narrow_copy(kb, 0, 0, kb.size(0))",
        "torch.split_with_sizes_copy(kb, [512, 64], 2)[0]",
    ],
    # ops of an operator namespace ([conversions] op_namespaces): the unbound method of their first argument
    "aten": [
        "torch.ops.aten.permute.default(kb, [0, 2, 1])",
        "torch.ops.aten.clone.default(kb)",
        "torch.ops.aten.unfold.default(kb, 2, 64, 64)",
        "torch.ops.aten.narrow(kb, 2, 0, 64)",
        "torch.ops.aten.select.int(kb, 1, 0)",
    ],
    # device moves (`.to(device)`: no cast, every slot moved)
    "moves": ["kb.to(kb.device)", "kb.to(kb.device, non_blocking=True)"],
    # select as a function ([views] select_functions): the subscript it spells
    "select": ["torch.select(kb, 1, 0)", "torch.select_copy(kb, 2, 5)[:, None]"],
    # torch.where(cond, x, y) ([views] choose_functions) of the pool
    "choose": ["torch.where(torch.ones(24, 1, 1, dtype=torch.bool), kb, kb)"],
}
CASES = [(family, r) for family, rs in RECEIVERS.items() for r in rs]
# Elementwise ops ([views] elementwise_methods, elementwise_functions) change values, so most have no
# FP8 kernel on CPU (torch 2.13: clamp, masked_fill, nan_to_num, bitwise ops): the FP8 pool's bytes
# are read as uint8 first (a reinterpret, zero copy), the bfloat16 pool's as they are.
ELEMENTWISE = {
    "fp8": [
        "kb.view(torch.uint8).clamp(0, 100)",
        "torch.clamp(kb.view(torch.uint8), 0, 100)",
        "kb.view(torch.uint8).masked_fill(kb.view(torch.uint8) > 200, 0)",
        "torch.bitwise_and(kb.view(torch.uint8), 0x7F)",
        "kb.view(torch.uint8).bitwise_and(0x7F)",
        "torch.nan_to_num(kb.view(torch.uint8))",
        "torch.where(kb.view(torch.uint8) > 100, kb, kb)",
        "(~kb.view(torch.uint8))",
        "abs(kb.view(torch.uint8))",
    ],
    "bf16": [
        "kb.clamp(-2.0, 2.0)",
        "torch.clamp(kb, -2.0, 2.0)",
        "kb.masked_fill(kb > 1.0, 0)",
        "torch.nan_to_num(kb)",
        "kb.nan_to_num(nan=0.0)",
        "torch.where(kb > 0, kb, 0.0)",
        "(-kb)",
        "abs(kb)",
        "kb.exp()",
    ],
}
ELEMENTWISE_CASES = [(pool, r) for pool, rs in ELEMENTWISE.items() for r in rs]

HEADER = """import einops
import torch
import torch.nn.functional as F


class Backend:
    def forward_decode(self, q, layer, forward_batch, loc):
        kb = self.pool.get_key_buffer(layer.layer_id)
"""
# form -> (body lines with {r} for the receiver, what the fixed body holds)
FORMS = {
    "direct": (["return {r}.float()[loc]"], ["{r}[loc].float()"]),
    "chain": (["return {r}.to(torch.bfloat16).index_select(0, loc)"], ["{r}.index_select(0, loc).to(torch.bfloat16)"]),
    "variable": (
        ["k = {r}.to(q.dtype)", "return k[loc], k[loc[:3]].shape"],
        ["k[loc].to(q.dtype)", "k[loc[:3]].to(q.dtype)"],
    ),
}
POOLS = {"fp8": Env(), "bf16": Env(kv_dtype="bfloat16")}
PROVED = {"pairs": 0}


def source_of(receiver: str, form: str) -> bytes:
    body = "".join(f"        {line.format(r=receiver)}\n" for line in FORMS[form][0])
    return (HEADER + body).encode()


def fixed(source: bytes):
    return fix_source(source, "backend.py", TABLES, FixOptions())


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("family,receiver", CASES)
def test_cl003_fix_after_a_whole_keeping_op_behaves_like_its_input(family, receiver, form):
    source = source_of(receiver, form)
    result = fixed(source)
    new = result.new_source.decode()
    assert result.changed, f"{receiver} ({form}): no safe fix: {result.skipped}"
    for text in FORMS[form][1]:
        assert " ".join(text.format(r=receiver).split()) in " ".join(new.split()), new
    for pool, env in POOLS.items():
        original = execute(source, env, "classes")
        fixed_run = execute(result.new_source, env, "classes")
        assert original.load_error is None, original.load_error
        assert not original.raised, f"{receiver} ({form}, {pool} pool): the original raises: {original.errors}"
        why = same_behaviour(original, fixed_run)
        assert why is None, f"{receiver} ({form}, {pool} pool): {why}\n--- fixed ---\n{new}"
        PROVED["pairs"] += 1


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("pool,receiver", ELEMENTWISE_CASES)
def test_cl003_fix_after_an_elementwise_op_behaves_like_its_input(pool, receiver, form):
    source = source_of(receiver, form)
    result = fixed(source)
    new = result.new_source.decode()
    assert result.changed, f"{receiver} ({form}): no safe fix: {result.skipped}"
    for text in FORMS[form][1]:
        assert " ".join(text.format(r=receiver).split()) in " ".join(new.split()), new
    env = POOLS[pool]
    original = execute(source, env, "classes")
    fixed_run = execute(result.new_source, env, "classes")
    assert original.load_error is None, original.load_error
    assert not original.raised, f"{receiver} ({form}, {pool} pool): the original raises: {original.errors}"
    why = same_behaviour(original, fixed_run)
    assert why is None, f"{receiver} ({form}, {pool} pool): {why}\n--- fixed ---\n{new}"


# -- the same pairs on real torch (CPU) ----------------------------------------------------------


def _real_run(torch, source: bytes, dtype):
    """forward_decode of the module on a real (24, 1, 576) pool of `dtype`: the result or the
    exception, and the pool afterwards."""
    module = types.ModuleType("castlint_real_subject")
    exec(compile(source, "<castlint_real_subject>", "exec"), module.__dict__)
    g = torch.Generator().manual_seed(0)
    buf = torch.randn(24, 1, 576, generator=g).to(dtype)
    backend = module.Backend()
    backend.pool = types.SimpleNamespace(get_key_buffer=lambda layer_id: buf)
    layer = types.SimpleNamespace(layer_id=0)
    q = torch.randn(2, 2, 576, generator=g).to(torch.bfloat16)
    loc = torch.tensor([5, 0, 23, 7, 7, 12])
    try:
        out = backend.forward_decode(q, layer, None, loc)
    except Exception as exc:  # noqa: BLE001 - an outcome
        return ("raised", type(exc).__name__, str(exc)), buf.clone()
    return ("ok", out), buf.clone()


def _same_real(torch, a, b) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        return torch.equal(a.reshape(-1).view(torch.uint8), b.reshape(-1).view(torch.uint8))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_real(torch, x, y) for x, y in zip(a, b))
    return a == b


def _real_einops(source: bytes) -> bytes:
    """The module without `import einops`, and einops' spaced einsum pattern in torch's letters."""
    return source.replace(b"import einops\n", b"").replace(b'"t h d -> t d h"', b'"thd->tdh"')


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("family,receiver", [c for c in CASES if c[0] != "einops"])
def test_the_same_pairs_on_real_torch(family, receiver, form):
    torch = pytest.importorskip("torch")
    source = _real_einops(source_of(receiver, form))
    new = _real_einops(fixed(source_of(receiver, form)).new_source)
    for dtype in (torch.float8_e4m3fn, torch.bfloat16):
        (out_a, pool_a), (out_b, pool_b) = _real_run(torch, source, dtype), _real_run(torch, new, dtype)
        assert out_a[0] == out_b[0] and _same_real(torch, out_a[1:], out_b[1:]), (receiver, form, dtype, out_a[:2])
        assert _same_real(torch, pool_a, pool_b)


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("pool,receiver", ELEMENTWISE_CASES)
def test_the_elementwise_pairs_on_real_torch(pool, receiver, form):
    torch = pytest.importorskip("torch")
    source = _real_einops(source_of(receiver, form))
    new = _real_einops(fixed(source_of(receiver, form)).new_source)
    dtype = torch.float8_e4m3fn if pool == "fp8" else torch.bfloat16
    (out_a, pool_a), (out_b, pool_b) = _real_run(torch, source, dtype), _real_run(torch, new, dtype)
    assert out_a[0] == "ok", (receiver, form, out_a)
    assert out_a[0] == out_b[0] and _same_real(torch, out_a[1:], out_b[1:]), (receiver, form, dtype, out_a[:2])
    assert _same_real(torch, pool_a, pool_b)


# -- the fake ops are torch's -----------------------------------------------------------------------

OPS = {
    "flip0": lambda T, t: t.flip(0),
    "flip02": lambda T, t: T.flip(t, (0, 2)),
    "flip_last": lambda T, t: t.flip(-1),
    "flipud_strided": lambda T, t: t[:, 0, 0].flipud(),
    "fliplr": lambda T, t: T.fliplr(t),
    "fliplr_2d": lambda T, t: t[:, 0].fliplr(),
    "flip_transposed": lambda T, t: t.transpose(0, 2).flip(1),
    "roll": lambda T, t: T.roll(t, 1, 0),
    "roll_dims": lambda T, t: t.roll((1, -2), (0, 2)),
    "roll_flat": lambda T, t: t.roll(5),
    "rot90": lambda T, t: T.rot90(t, 1, (0, 1)),
    "rot90_last": lambda T, t: t.rot90(1, (1, 2)),
    "rot90_2": lambda T, t: t.rot90(2, (0, 2)),
    "rot90_3": lambda T, t: t.rot90(3, (0, 1)),
    "rot90_0": lambda T, t: t.rot90(0),
    "tile": lambda T, t: T.tile(t, (2, 1, 1)),
    "tile_short": lambda T, t: t.tile(2),
    "tile_long": lambda T, t: t.tile(2, 1, 1, 2),
    "repeat": lambda T, t: t.repeat(1, 2, 1, 1),
    "repeat_interleave": lambda T, t: t.repeat_interleave(2, dim=0),
    "repeat_interleave_flat": lambda T, t: t.repeat_interleave(2),
    "repeat_interleave_tensor": lambda T, t: t.repeat_interleave(T.tensor([1, 0, 2]), dim=1),
    "conj": lambda T, t: T.conj(t),
    "resolve_neg": lambda T, t: T.resolve_neg(t),
    "atleast_1d": lambda T, t: T.atleast_1d(t[0, 0, 0]),
    "atleast_2d": lambda T, t: T.atleast_2d(t[:, 0, 0]),
    "atleast_3d_1d": lambda T, t: T.atleast_3d(t[:, 0, 0]),
    "atleast_3d_2d": lambda T, t: T.atleast_3d(t[:, 0]),
    "atleast_3d_3d": lambda T, t: T.atleast_3d(t),
    "moveaxis": lambda T, t: T.moveaxis(t, 2, 0),
    "movedim": lambda T, t: t.movedim((0, 1), (2, 0)),
    "swapdims": lambda T, t: T.swapdims(t, 0, 1),
    "unflatten": lambda T, t: T.unflatten(t, 2, (2, 2)),
    "pad": lambda T, t: T.nn.functional.pad(t, (0, 2)),
    "pad_value": lambda T, t: T.nn.functional.pad(t, (1, 1, 0, 1), value=0.3),
    "pad_negative": lambda T, t: T.nn.functional.pad(t, (-1, 2)),
    "constant_pad_nd": lambda T, t: T.constant_pad_nd(t, (1, 0, 0, 0, 2, 1), 2.5),
    "permute_copy": lambda T, t: T.permute_copy(t, (1, 0, 2)),
    "view_copy": lambda T, t: T.view_copy(t, (6, 12)),
    "squeeze_copy": lambda T, t: T.squeeze_copy(t[:, :1]),
    "t_copy": lambda T, t: T.t_copy(t[:, 0]),
    "alias_copy": lambda T, t: T.alias_copy(t),
    "expand_copy": lambda T, t: T.expand_copy(t[:1], (6, 3, 4)),
    "column_stack": lambda T, t: T.column_stack([t, t]),
    "column_stack_1d": lambda T, t: T.column_stack([t[:, 0, 0], t[:, 1]]),
    "row_stack": lambda T, t: T.row_stack([t, t]),
    "vstack_0d": lambda T, t: T.vstack([t[0, 0], t[1, 1]]),
    "dstack": lambda T, t: T.dstack([t[:, 0], t[:, 1]]),
    "block_diag": lambda T, t: T.block_diag(t[:, 0], t[:2, 1, :2], t[0, 0]),
    "hsplit": lambda T, t: T.hsplit(t, 3)[1],
    "hsplit_indices": lambda T, t: t.hsplit([1, 2])[2],
    "hsplit_uneven": lambda T, t: T.hsplit(t, 2)[0],
    "vsplit": lambda T, t: T.vsplit(t, 2)[1],
    "dsplit": lambda T, t: t.dsplit(2)[1],
    "unsafe_chunk": lambda T, t: T.unsafe_chunk(t, 2, 2)[0],
    "split_with_sizes": lambda T, t: t.split_with_sizes([3, 1], 2)[0],
    "tensor_split": lambda T, t: t.tensor_split(4, 0)[3],
    "mT": lambda T, t: t.mT,
    "T": lambda T, t: t[:, 0].T,
    "ravel": lambda T, t: t.transpose(0, 1).ravel(),
    "unfold_tokens": lambda T, t: t.unfold(0, 1, 1),
    "unfold_pairs": lambda T, t: t.unfold(0, 2, 2),
    "unfold_last": lambda T, t: t.unfold(-1, 2, 1),
    "unfold_transposed": lambda T, t: t.transpose(0, 2).unfold(1, 2, 1),
    "unfold_copy": lambda T, t: T.unfold_copy(t, 2, 2, 2),
    "narrow_copy": lambda T, t: t.narrow_copy(2, 1, 2),
    "narrow_copy_fn": lambda T, t: T.narrow_copy(t, 0, 0, 6),
    "split_with_sizes_copy": lambda T, t: T.split_with_sizes_copy(t, [3, 1], 2)[0],
    "einsum_perm": lambda T, t: T.einsum("thd->dth", t),
    "einsum_list": lambda T, t: T.einsum("thd->thd", [t]),
    "aten_permute": lambda T, t: T.ops.aten.permute.default(t, [2, 0, 1]),
    "aten_to_copy": lambda T, t: T.ops.aten._to_copy.default(t, dtype=T.float32),
    "aten_to_copy_same": lambda T, t: T.ops.aten._to_copy(t),
    "aten_view": lambda T, t: T.ops.aten.view.default(t, [6, 12]),
    "prims_convert": lambda T, t: T.ops.prims.convert_element_type.default(t, T.float32),
    "where": lambda T, t: T.where(T.tensor([True, False, True, True, False, True]).reshape(6, 1, 1), t, t.flip(0)),
    "bitwise_and": lambda T, t: T.bitwise_and(t, 3),
    "invert": lambda T, t: ~t,
    "nan_to_num": lambda T, t: T.nan_to_num(t),
    "empty_index": lambda T, t: t[()],
    "none_slice": lambda T, t: t[0:None, None:None:None],
    "select_copy": lambda T, t: T.select_copy(t, 1, 2),
    "select_fn": lambda T, t: T.select(t, 2, 0),
}


def _input(T, dtype: str):
    values = [((i * 7) % 13 - 6) * 0.25 for i in range(72)]
    return T.tensor(values).reshape(6, 3, 4).to(getattr(T, dtype))


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "bfloat16"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_fake_op_is_torchs(op, dtype):
    """Values, shape, dtype, view-or-copy and the exception (FP8 flips torch has no CPU kernel for)
    of each fake op equal real torch's (CPU)."""
    torch = pytest.importorskip("torch")
    fake = make_torch()
    fn = OPS[op]
    outcomes = []
    for T in (torch, fake):
        x = _input(T, dtype)
        try:
            y = fn(T, x)
        except Exception as exc:  # noqa: BLE001
            outcomes.append(("raised", type(exc).__name__))
            continue
        shares = (
            y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() if T is torch else y._storage is x._storage
        )
        outcomes.append((tuple(y.shape), str(y.dtype).split(".")[-1], y.float().flatten().tolist(), shares))
    assert outcomes[0] == outcomes[1]


def test_fake_einops_pack_and_unpack():
    from faketorch.reorder import make_einops

    torch = make_torch()
    einops = make_einops(torch)
    k = torch.tensor([float(i) for i in range(24)]).reshape(2, 3, 4)
    v = torch.tensor([float(-i) for i in range(6)]).reshape(2, 3)
    packed, shapes = einops.pack([k, v], "n h *")
    assert tuple(packed.shape) == (2, 3, 5) and shapes == [(4,), ()]
    k2, v2 = einops.unpack(packed, shapes, "n h *")
    assert k2.tolist() == k.tolist() and v2.tolist() == v.tolist()


# -- what would not be equivalent is not fixed --------------------------------------------------------

# a cast *before* the op: moving it past the op would run the op on the stored dtype only after the fix
CAST_INSIDE = [
    "torch.flip(kb.float(), (2,))[loc]",
    "kb.float().flip(-1)[loc]",
    "torch.rot90(kb.half(), 1, (1, 2))[loc]",
    "F.pad(kb.float(), (0, 64))[loc]",
    "kb.float().tile(2, 1, 1).index_select(0, loc)",
    "torch.hsplit(kb.float()[:, 0], 2)[0][loc]",
]


@pytest.mark.parametrize("expr", CAST_INSIDE)
def test_a_cast_before_the_op_is_not_moved_past_it(expr):
    source = (HEADER + f"        return {expr}\n").encode()
    result = fixed(source)
    assert not result.changed, result.new_source.decode()
    torch = make_torch()
    x = torch.tensor([0.5, -1.0, 2.0]).reshape(1, 3).to(torch.float8_e4m3fn)
    with pytest.raises(NotImplementedError, match="flip_cpu"):
        x.flip(-1)  # what the op would meet after such a move, on CPU
