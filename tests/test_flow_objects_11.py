"""Value flow, round 11 (issue 19, families f1 and f2): what `with cm as x` binds (contextlib.nullcontext /
closing, a class's `__enter__`, a `@contextmanager` generator, ExitStack.enter_context), the dunder protocols
(`__iter__` unpacked, iterated and spread into a call, a dict subclass's `__missing__`), properties made by a
`property(...)` call and getters run explicitly (`Base.prop.fget(obj)`, `__get__`), functions stored on a
class outside its defs (a class-body lambda, `setattr(Cls, "m", f)`), classes held under another name
(`functools.partial(Reader, ...)`, a class attribute naming the class to build), attributes set with
`object.__setattr__` / `super().__setattr__`, tuples returned and unpacked across calls, isinstance narrowing
(ABC.register), WeakMethod dereferences and a cache attribute read on an object of unknown class. Each shape
has look-alikes beside it; the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from castlint.tables import load_tables
from marked_cases import FILLER
from marked_cases import check as _check

TABLES = load_tables()

CASES = {
    # f1: a class-based context manager whose __enter__ hands back the layer's cache (lmdeploy style)
    "enter_returns_cache": """
import torch


class LayerLease:
    def __init__(self, engine, layer_idx):
        self.engine = engine
        self.layer_idx = layer_idx

    def __enter__(self):
        return self.engine.gpu_cache[self.layer_idx][0]

    def __exit__(self, *exc):
        return False


class RowLease:
    def __init__(self, engine, layer_idx, offsets):
        self.rows = engine.gpu_cache[layer_idx][0][offsets]

    def __enter__(self):
        return self.rows

    def __exit__(self, *exc):
        return False


class LeasedAttention:
    def __init__(self, engine, layer_idx):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        with LayerLease(self.engine, self.layer_idx) as k_cache:
            dense = k_cache.to(query.dtype)  # positive
        with RowLease(self.engine, self.layer_idx, attn_metadata.block_offsets) as rows:
            part = rows.to(query.dtype)  # negative
        with torch.cuda.stream(attn_metadata.stream) as s:
            lens = attn_metadata.q_seqlens.to(torch.int64)  # negative
        return dense, part, lens, s
""",
    # f1: `__enter__` returning self, the object's attribute read after the with (TRT-LLM style)
    "enter_returns_self": """
import contextlib

import torch


class BufferScope:
    def __init__(self, manager, layer_idx):
        self.buf = manager.get_buffers(layer_idx)
        self.ids = manager.get_batch_cache_indices([0])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


class ScopedAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        with BufferScope(metadata.kv_cache_manager, self.layer_idx) as scope:
            whole = scope.buf.to(q.dtype)  # positive
            ids = scope.ids.to(torch.int32)  # negative
        with contextlib.ExitStack() as stack:
            held = stack.enter_context(BufferScope(metadata.kv_cache_manager, self.layer_idx))
            again = held.buf.half()  # positive
        return whole, ids, again
""",
    # f1: a generator made a context manager yields the whole layer; another yields gathered rows (sglang)
    "contextmanager_generator": """
import contextlib

import torch


class BorrowBackend:
    @contextlib.contextmanager
    def _borrowed(self, forward_batch, layer_id):
        pool = forward_batch.token_to_kv_pool
        yield pool.get_value_buffer(layer_id)

    @contextlib.contextmanager
    def _rows(self, forward_batch, layer_id):
        yield forward_batch.token_to_kv_pool.get_value_buffer(layer_id)[forward_batch.out_cache_loc]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        with self._borrowed(forward_batch, layer.layer_id) as vbuf:
            up = vbuf.to(q.dtype)  # positive
        with self._rows(forward_batch, layer.layer_id) as rows:
            small = rows.to(q.dtype)  # negative
        return up, small
""",
    # f1: contextlib.closing / nullcontext around registered caches in a vLLM connector; a window of the
    # step and a count beside them
    "closing_nullcontext_connector": """
import contextlib

import torch


class ClosingConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.done = {name: torch.zeros(1, dtype=torch.int32) for name in kv_caches}

    def wait_for_save(self):
        for name, cache in self.kv_caches.items():
            with contextlib.closing(cache) as c:
                self._push(name, c.bfloat16())  # positive
            with contextlib.nullcontext(self.done[name]) as d:
                self._push(name, d.to(torch.int64))  # negative

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        stack = contextlib.ExitStack()
        whole = stack.enter_context(contextlib.nullcontext(kv_layer))
        rows = stack.enter_context(contextlib.nullcontext(kv_layer[:, attn_metadata.slot_mapping]))
        self._push(layer_name, whole.float())  # positive
        self._push(layer_name, rows.float())  # negative

    def _push(self, name, t):
        return t
""",
    # f1: a slot object whose __iter__ is a generator yielding K then V (sglang); unpacked, iterated,
    # spread into a helper and made a list
    "iter_generator_slot": """
import torch


class KVSlot:
    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id

    def __iter__(self):
        yield self.pool.get_key_buffer(self.layer_id)
        yield self.pool.get_value_buffer(self.layer_id)


class LensSlot:
    def __init__(self, req_to_token_pool, idx):
        self.lens = req_to_token_pool.seq_lens[idx]

    def __iter__(self):
        return iter([self.lens])


class SlotIterBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kb, vb = KVSlot(pool, layer.layer_id)
        a = vb.to(q.dtype)  # positive
        b = [t.half() for t in KVSlot(pool, layer.layer_id)]  # positive
        c = list(KVSlot(pool, layer.layer_id))[0].float()  # positive
        (n,) = LensSlot(forward_batch.req_to_token_pool, forward_batch.req_pool_indices)
        d = n.to(torch.int64)  # negative
        return self._join(q, *KVSlot(pool, layer.layer_id)), a, b, c, d

    def _join(self, q, kk, vv):
        return kk.bfloat16()  # positive
""",
    # f1: `__iter__` returning the iterator of a stored pair, rows gathered in a sibling class (lmdeploy)
    "iter_stored_pair": """
import torch


class EnginePair:
    def __init__(self, engine, layer_idx):
        self.pair = (engine.gpu_cache[layer_idx][0], engine.gpu_cache[layer_idx][1])

    def __iter__(self):
        return iter(self.pair)


class OffsetPair:
    def __init__(self, engine, layer_idx, offsets):
        self.pair = (engine.gpu_cache[layer_idx][0][offsets], engine.gpu_cache[layer_idx][1][offsets])

    def __iter__(self):
        return iter(self.pair)


class PairAttention:
    def __init__(self, engine, layer_idx):
        self.engine = engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        k_c, v_c = EnginePair(self.engine, self.layer_idx)
        v_up = v_c.float()  # positive
        k_r, v_r = OffsetPair(self.engine, self.layer_idx, attn_metadata.block_offsets)
        k_up = k_r.float()  # negative
        return v_up, k_up
""",
    # f1: a dict subclass (OrderedDict) memoizing the pool's layers in __missing__ (sglang); another memoizes
    # lengths; a plain dict beside them
    "missing_ordered_dict": """
import collections

import torch


class LayerMemo(collections.OrderedDict):
    def __init__(self, pool):
        super().__init__()
        self.pool = pool

    def __missing__(self, layer_id):
        value = self.pool.get_key_buffer(layer_id)
        self[layer_id] = value
        return value


class LenMemo(dict):
    def __init__(self, req_to_token_pool):
        super().__init__()
        self.req_to_token_pool = req_to_token_pool

    def __missing__(self, idx):
        return self.req_to_token_pool.seq_lens[idx]


class MemoBackend:
    def __init__(self, model_runner):
        self.memo = LayerMemo(model_runner.token_to_kv_pool)
        self.lens = LenMemo(model_runner.req_to_token_pool)
        self.plain = {}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.memo[layer.layer_id].to(q.dtype)  # positive
        b = self.memo.get(layer.layer_id, self.memo[layer.layer_id])[..., :512].half()  # positive
        c = self.lens[forward_batch.req_pool_indices].to(torch.int32)  # negative
        d = self.memo[layer.layer_id][forward_batch.out_cache_loc].to(q.dtype)  # negative
        return a, b, c, d
""",
    # f1: properties made by a call: property(fget=<class-body def>), a module-level `Cls.x = property(...)`
    # (vLLM); a block table beside them
    "property_calls": """
import torch


class CacheView:
    def __init__(self, kv_cache, block_table):
        self.kv_cache = kv_cache
        self.block_table = block_table

    def _key(self):
        return self.kv_cache[0]

    key_cache = property(fget=_key)
    table = property(lambda self: self.block_table)


CacheView.value_cache = property(lambda self: self.kv_cache[1])


class ViewImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        view = CacheView(kv_cache, attn_metadata.block_table)
        a = view.key_cache.to(query.dtype)  # positive
        b = view.value_cache.float()  # positive
        c = view.table.to(torch.int64)  # negative
        return a, b, c
""",
    # f2: a base getter run explicitly past the override (TRT-LLM): fget through the class, __get__ with an
    # owner; the override gathers
    "explicit_getters": """
import torch


class ManagerView:
    def __init__(self, manager, layer_idx):
        self.manager = manager
        self.layer_idx = layer_idx

    @property
    def dense(self):
        return self.manager.get_buffers(self.layer_idx)


class BlockView(ManagerView):
    def __init__(self, manager, layer_idx, block_ids):
        super().__init__(manager, layer_idx)
        self.block_ids = block_ids

    @property
    def dense(self):
        return super().dense[self.block_ids]


class GetterAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        view = BlockView(metadata.kv_cache_manager, self.layer_idx, metadata.block_ids)
        a = ManagerView.dense.__get__(view, ManagerView).to(q.dtype)  # positive
        getter = ManagerView.dense.fget
        b = getter(view).half()  # positive
        c = view.dense.to(q.dtype)  # negative
        d = BlockView.dense.fget(view).to(q.dtype)  # negative
        return a, b, c, d
""",
    # f2: methods stored on a pool class outside a def: a class-body lambda and setattr of a def (sglang);
    # a row reader installed the same way
    "installed_functions": """
import torch


class LatentPool:
    latent_of = lambda self, layer_id: self.kv_buffer[layer_id][..., :512]  # noqa: E731

    def __init__(self, size, layer_num):
        self.kv_buffer = [torch.zeros(size + 1, 1, 576, dtype=torch.float8_e4m3fn) for _ in range(layer_num)]


def _rope_of(self, layer_id):
    return self.kv_buffer[layer_id][..., 512:]


setattr(LatentPool, "rope_of", _rope_of)
setattr(LatentPool, "rows_of", lambda self, layer_id, loc: self.kv_buffer[layer_id][loc])


class InstalledBackend:
    def __init__(self, pool: LatentPool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.pool.latent_of(layer.layer_id).to(q.dtype)  # positive
        b = self.pool.rope_of(layer.layer_id).to(q.dtype)  # positive
        c = self.pool.rows_of(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative
        return a, b, c
""",
    # f1: a class held under another name: a class attribute naming the reader class, and a local alias
    # (lmdeploy); a partial of a lengths class beside them
    "held_classes": """
import functools

import torch


class PlaneReader:
    def __init__(self, gpu_cache, layer_idx):
        self.k = gpu_cache[layer_idx][0]
        self.v = gpu_cache[layer_idx][1]


class SeqReader:
    def __init__(self, q_seqlens, layer_idx):
        self.lens = q_seqlens


class HeldClassAgent:
    reader_cls = PlaneReader

    def __init__(self, cache_engine):
        self.cache_engine = cache_engine
        self._planes = functools.partial(PlaneReader, cache_engine.gpu_cache)
        self._seq = functools.partial(SeqReader)

    def forward(self, inputs, swap_in_map=None, swap_out_map=None):
        r = self.reader_cls(self.cache_engine.gpu_cache, 0)
        a = r.k.float()  # positive
        make = PlaneReader
        b = make(self.cache_engine.gpu_cache, 1).v.half()  # positive
        s = self._seq(inputs.q_seqlens, 0)
        c = s.lens.to(torch.int64)  # negative
        d = self._planes(2).k.bfloat16()  # positive
        return a, b, c, d
""",
    # f1: attributes set through object.__setattr__ / super().__setattr__ (vLLM, a frozen record and a
    # class overriding __setattr__)
    "object_setattr": """
import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class FrozenPlanes:
    kv_cache: torch.Tensor
    block_table: torch.Tensor
    key: torch.Tensor = dataclasses.field(init=False)
    table: torch.Tensor = dataclasses.field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "key", self.kv_cache[0])
        object.__setattr__(self, "table", self.block_table[:, :4])


class Guarded:
    def __init__(self, kv_cache, slot_mapping):
        super().__setattr__("value", kv_cache[1])
        super().__setattr__("slots", kv_cache[1][slot_mapping])

    def __setattr__(self, name, v):
        raise AttributeError(name)


class SetattrImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        planes = FrozenPlanes(kv_cache, attn_metadata.block_table)
        a = planes.key.to(query.dtype)  # positive
        b = planes.table.to(torch.int64)  # negative
        g = Guarded(kv_cache, attn_metadata.slot_mapping)
        c = g.value.float()  # positive
        d = g.slots.float()  # negative
        return a, b, c, d
""",
    # f1: attributes set with setattr / object.__setattr__ on other objects (sglang): a frozen record made
    # in init_forward_metadata, the forward batch; gathered rows and a record field beside them
    "setattr_other_object": """
import dataclasses

import torch


@dataclasses.dataclass(frozen=True)
class StepMeta:
    seq_lens: torch.Tensor


class SetOnOthers:
    def init_forward_metadata(self, forward_batch):
        meta = StepMeta(forward_batch.seq_lens)
        object.__setattr__(meta, "latent", forward_batch.token_to_kv_pool.get_key_buffer(0))
        setattr(forward_batch, "rows", forward_batch.token_to_kv_pool.get_key_buffer(0)[forward_batch.out_cache_loc])
        self.meta = meta

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        a = self.meta.latent.to(q.dtype)  # positive
        b = forward_batch.rows.to(q.dtype)  # negative
        c = self.meta.seq_lens.to(torch.int64)  # negative
        return a, b, c
""",
    # f1: tuples returned and unpacked across methods: a (pool, layer) pair, a (layer, rows) pair whose
    # second element is gathered (sglang)
    "tuple_hops": """
import torch


class HopBackend:
    def _locate(self, forward_batch, layer):
        return forward_batch.token_to_kv_pool, layer.layer_id

    def _both(self, pool, layer_id, loc):
        return pool.get_key_buffer(layer_id), pool.get_key_buffer(layer_id)[loc]

    def _widen(self, pair, dtype):
        whole, rows = pair
        return whole.to(dtype), rows.to(dtype)  # positive

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool, lid = self._locate(forward_batch, layer)
        w, r = self._widen(self._both(pool, lid, forward_batch.out_cache_loc), q.dtype)
        full, part = self._both(pool, lid, forward_batch.out_cache_loc)
        x = part.to(q.dtype)  # negative
        y = full.half()  # positive
        return w, r, x, y
""",
    # f1: a receiver and its layer index carried through a returned tuple into a helper (TRT-LLM): the
    # manager's accessor by its receiver's spelling and a scalar index
    "tuple_receiver": """
import torch


class CarryAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def _target(self, metadata):
        return metadata.kv_cache_manager, self.layer_idx, metadata.seq_lens

    def _read(self, mgr, i):
        return mgr.get_buffers(i)

    def forward(self, q, k, v, metadata):
        mgr, i, lens = self._target(metadata)
        a = self._read(mgr, i).to(q.dtype)  # positive
        b = lens.to(torch.int32)  # negative
        return a, b
""",
    # f2: isinstance narrowing: a class registered with @Base.register, a plain subclass test and `not
    # isinstance` (lmdeploy); the other branches read staged rows
    "isinstance_narrowing": """
import abc

import torch


class Whole(abc.ABC):
    pass


@Whole.register
class PagedEngine:
    def __init__(self, num_blocks, num_layers):
        self.gpu_cache = [
            (torch.empty(num_blocks, 16, 8, 128), torch.empty(num_blocks, 16, 8, 128)) for _ in range(num_layers)
        ]

    def layer(self, idx):
        return self.gpu_cache[idx][0]


class Staging:
    def __init__(self, num_layers):
        self.rows = [torch.empty(32, 8, 128) for _ in range(num_layers)]
        self.n = 0

    def layer(self, idx):
        return self.rows[idx][: self.n]


class DraftEngine(PagedEngine):
    pass


class NarrowAttention:
    def __init__(self, cfg, layer_idx):
        self.sources = [PagedEngine(cfg.num_blocks, cfg.num_layers), Staging(cfg.num_layers), DraftEngine(4, 2)]
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        out = []
        for src in self.sources:
            if isinstance(src, Whole):
                out.append(src.layer(self.layer_idx).to(query.dtype))  # positive
            else:
                out.append(src.layer(self.layer_idx).to(query.dtype))  # negative
            if not isinstance(src, PagedEngine):
                out.append(src.layer(self.layer_idx).float())  # negative
            elif isinstance(src, DraftEngine):
                out.append(src.layer(self.layer_idx).half())  # positive
        return out
""",
    # f2: isinstance narrowing of an annotated base to a subclass whose override returns the whole layer
    # (TRT-LLM); in the else branch only the gathering implementations run
    "isinstance_subclass": """
import torch


class Source:
    def __init__(self, manager):
        self.manager = manager

    def fetch(self, i):
        return self.manager.get_buffers(i)[self.manager.ids]


class WholeSource(Source):
    def fetch(self, i):
        return self.manager.get_buffers(i)


class NarrowedAttention:
    def __init__(self, src: Source, layer_idx):
        self.src = src
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        src = self.src
        if isinstance(src, WholeSource):
            a = src.fetch(self.layer_idx).to(q.dtype)  # positive
        else:
            a = src.fetch(self.layer_idx).to(q.dtype)  # negative
        b = src.fetch(self.layer_idx).half() if isinstance(src, WholeSource) else None  # positive
        return a, b
""",
    # f1: nested tuples returned by module functions and unpacked by position (sglang): ((pool, layer), loc),
    # a pair handed to a helper
    "tuple_nested_functions": """
import torch


def locate(forward_batch, layer):
    return (forward_batch.token_to_kv_pool, layer.layer_id), forward_batch.out_cache_loc


def read_pair(where):
    pool, lid = where
    return pool.get_key_buffer(lid), pool.get_value_buffer(lid)


class NestedBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        (pool, lid), loc = locate(forward_batch, layer)
        kb, vb = read_pair((pool, lid))
        a = kb.to(q.dtype)  # positive
        b = loc.to(torch.int64)  # negative
        c = self._stage(read_pair(locate(forward_batch, layer)[0]))
        return a, b, c

    def _stage(self, pair):
        first, second = pair
        return second.float()  # positive
""",
    # f1: a proxy delegating missing attributes with `__getattr__` to the object it wraps (lmdeploy), a
    # name-switched `__getattr__` (sglang); attributes the classes set themselves beside them
    "getattr_proxy": """
import torch


class LayerStore:
    def __init__(self, num_blocks, num_layers):
        self.planes = [torch.empty(num_blocks, 16, 8, 128, dtype=torch.float8_e5m2) for _ in range(num_layers)]
        self.lens = torch.zeros(64, dtype=torch.int32)


class Delegate:
    def __init__(self, store: LayerStore):
        self._store = store
        self.tag = torch.zeros(1)

    def __getattr__(self, name):
        return getattr(self._store, name)


class LayerAccess:
    def __init__(self, pool, layer_id):
        self.pool = pool
        self.layer_id = layer_id

    def __getattr__(self, name):
        if name == "latent":
            return self.pool.get_key_buffer(self.layer_id)[..., :512]
        raise AttributeError(name)


class ProxyAttention:
    def __init__(self, store: LayerStore, layer_idx):
        self.view = Delegate(store)
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata, k_scales_zeros=None, v_scales_zeros=None):
        a = self.view.planes[self.layer_idx].to(query.dtype)  # positive
        b = self.view.lens.to(torch.int64)  # negative
        c = self.view.tag.half()  # negative
        return a, b, c

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        acc = LayerAccess(forward_batch.token_to_kv_pool, layer.layer_id)
        d = acc.latent.to(q.dtype)  # positive
        e = acc.layer_id.float()  # negative
        return d, e
""",
    # f1: bound accessors held weakly (sglang): WeakMethod of a pool method of the module, dereferenced
    # and called; one of a lengths getter
    "weak_methods": """
import weakref

import torch


class RopePool:
    def __init__(self, size, layer_num):
        self.kv_buffer = [torch.zeros(size + 1, 1, 576, dtype=torch.float8_e4m3fn) for _ in range(layer_num)]

    def rope(self, layer_id):
        return self.kv_buffer[layer_id][..., 512:]


class WeakBackend:
    def __init__(self, pool: RopePool, req_to_token_pool):
        self._rope = weakref.WeakMethod(pool.rope)
        self._lens = weakref.WeakMethod(req_to_token_pool.lengths)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        rope = self._rope()
        a = rope(layer.layer_id).to(q.dtype)  # positive
        b = self._lens()(forward_batch.req_pool_indices).to(torch.int64)  # negative
        return a, b
""",
    # f2: a cache attribute read on an object of unknown class: the one class assigning it allocates
    # scales (lmdeploy), another assigns the per-layer caches
    "duck_cache_attribute": """
import torch


class QuantEngine:
    def __init__(self, num_layers, num_blocks):
        self.gpu_cache = [(torch.empty(num_blocks, 16, 8, 128, dtype=torch.int8),) * 2 for _ in range(num_layers)]
        self.scales_zeros = [torch.ones(num_blocks, 16, 8, 2) for _ in range(num_layers)]


class DuckAgent:
    def __init__(self, registry):
        self.engine = registry.lookup("cache")

    def forward(self, inputs, swap_in_map=None, swap_out_map=None):
        a = self.engine.gpu_cache[0][0].to(torch.float16)  # positive
        b = self.engine.scales_zeros[0].to(torch.float16)  # negative
        return a, b
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {line for _, line, _ in _check(path, False)}
    positives = {i for i, text in enumerate(lines, 1) if "# positive" in text}
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert found & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)
