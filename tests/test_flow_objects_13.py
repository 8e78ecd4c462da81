"""Value flow, round 13 (issue 19, families f1 and f2): protocol reads on a class itself (`Hub[i]` through
`__class_getitem__`, a metaclass's `__getitem__` / `__getattr__`, `getattr` with a computed name answered by
`__getattr__`), introspection getters as attribute getters (`inspect.getattr_static`), the receiver and index
of an accessor read off a per-step state object (the pruner keeps that object's class), classes reached
through classes (`type(self).__bases__[0]`, `__base__`, `__mro__[i]`, `inspect.getmro`), a class attribute
naming a class that a subclass overrides, and a store on a record after it is built. Each shape has
look-alikes beside it; the pruned analysis gives the whole file's findings."""

from __future__ import annotations

import pytest

from marked_cases import FILLER
from marked_cases import check as _check

CASES = {
    # f1: a class-level registry subscripted through __class_getitem__ (sglang style); a sibling registry of
    # per-step indices and a gathered read are look-alikes
    "class_getitem_registry": """
import torch


class LayerPools:
    _pool = None

    @classmethod
    def attach(cls, token_to_kv_pool):
        cls._pool = token_to_kv_pool

    def __class_getitem__(cls, layer_id):
        return cls._pool.get_key_buffer(layer_id)


class StepLocs:
    _locs = {}

    def __class_getitem__(cls, layer_id):
        return cls._locs[layer_id]


class RegistryBackend:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        whole = LayerPools[layer.layer_id].to(q.dtype)  # positive
        locs = StepLocs[layer.layer_id].to(torch.int64)  # negative
        rows = LayerPools[layer.layer_id][forward_batch.out_cache_loc].to(q.dtype)  # negative
        return whole, locs, rows
""",
    # f1/f2: a metaclass's __getitem__ answers `Caches[name]` on the class (vLLM style); the class's own
    # attribute and another metaclass's lengths are look-alikes
    "metaclass_getitem": """
import torch


class _CacheTable(type):
    runner = None

    def __getitem__(cls, name):
        return cls.runner.kv_caches[name]


class _LenTable(type):
    def __getitem__(cls, name):
        return cls.seq_lens[name]


class Caches(metaclass=_CacheTable):
    block_size = torch.zeros(1, dtype=torch.int32)


class Lens(metaclass=_LenTable):
    seq_lens = {}


class TableImpl:
    def __init__(self, layer_name):
        self.layer_name = layer_name

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        k_plane, v_plane = Caches[self.layer_name].unbind(0)
        k_dense = k_plane.float()  # positive
        bs = Caches.block_size.to(torch.int64)  # negative
        lens = Lens[self.layer_name].to(torch.int32)  # negative
        return k_dense, v_plane, bs, lens
""",
    # f2: a metaclass's __getattr__ answers a name the class lacks, by attribute and by a computed getattr
    # (sglang style); a class attribute and a metaclass answering with per-step lengths are look-alikes
    "metaclass_getattr": """
import torch


class _PoolNS(type):
    pool = None

    def __getattr__(cls, name):
        return cls.pool.get_value_buffer(int(name.rsplit("_", 1)[1]))


class _StepNS(type):
    batch = None

    def __getattr__(cls, name):
        return cls.batch.seq_lens


class V(metaclass=_PoolNS):
    scale = torch.ones(1)


class Steps(metaclass=_StepNS):
    pass


class NamespaceBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        _PoolNS.pool = forward_batch.token_to_kv_pool
        _StepNS.batch = forward_batch
        third = V.layer_3.to(q.dtype)  # positive
        mine = getattr(V, f"layer_{layer.layer_id}").bfloat16()  # positive
        scale = V.scale.to(q.dtype)  # negative
        lens = Steps.seq_3.to(torch.int32)  # negative
        also = getattr(Steps, f"seq_{layer.layer_id}").to(torch.int32)  # negative
        return third, mine, scale, lens, also
""",
    # f1: getattr with a computed name on an object whose class answers missing attributes (lmdeploy style)
    "computed_getattr_proxy": """
import torch


class EngineProxy:
    def __init__(self, cache_engine):
        self._engine = cache_engine

    def __getattr__(self, name):
        return self._engine.gpu_cache[int(name[1:])]


class LensProxy:
    def __init__(self, lens):
        self._lens = lens

    def __getattr__(self, name):
        return self._lens


class ProxyAttention:
    def __init__(self, cache_engine, layer_idx):
        self.proxy = EngineProxy(cache_engine)
        self.lens = LensProxy(torch.zeros(8, dtype=torch.int64))
        self.layer_idx = layer_idx

    def forward(self, query, key, value, past_key_value, attn_metadata):
        k_cache, v_cache = getattr(self.proxy, f"L{self.layer_idx}")
        k = k_cache.half()  # positive
        n = getattr(self.lens, f"L{self.layer_idx}").to(torch.int32)  # negative
        return k, v_cache, n
""",
    # f1: inspect.getattr_static read as getattr, imported by name, with a default (TRT-LLM style)
    "getattr_static": """
from inspect import getattr_static

import torch


class StaticImpl:
    def __init__(self, cache_engine, layer_idx):
        self.cache_engine = cache_engine
        self.layer_idx = layer_idx

    def forward(self, query, key, value, attn_metadata):
        k_cache, v_cache = getattr_static(self.cache_engine, "gpu_cache", None)[self.layer_idx]
        k = k_cache.to(query.dtype)  # positive
        block = getattr_static(self.cache_engine, "block_size").to(torch.int64)  # negative
        rows = v_cache[attn_metadata.block_offsets].to(query.dtype)  # negative
        return k, block, rows
""",
    # f1: the manager and the layer index carried by a per-step context object stored on self (TRT-LLM
    # style, another spelling: keywords, a nested helper); a gathered read and the step's lengths are
    # look-alikes
    "step_context": """
import torch


class StepCtx:
    def __init__(self, *, manager, idx, lens):
        self.manager = manager
        self.idx = idx
        self.lens = lens


class CtxAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        self.ctx = StepCtx(manager=metadata.kv_cache_manager, idx=self.layer_idx, lens=metadata.seq_lens_cuda)
        return self._decode(q, metadata)

    def _decode(self, q, metadata):
        ctx = self.ctx
        pool = ctx.manager.get_buffers(ctx.idx)
        dense = pool.to(q.dtype)  # positive
        picked = pool[metadata.block_ids_per_seq].to(q.dtype)  # negative
        lens = ctx.lens.to(torch.int32)  # negative
        return dense, picked, lens
""",
    # f2: a base reached through the MRO and __base__ of the object's class, its method called with self
    # (vLLM style); the override it skips gathers rows
    "mro_and_base_call": """
import inspect

import torch


class WholeRead:
    def planes(self, kv_cache):
        return kv_cache[0], kv_cache[1]


class RowsRead(WholeRead):
    def planes(self, kv_cache):
        return kv_cache[0][self.slots], kv_cache[1][self.slots]


class MroImpl(RowsRead):
    def __init__(self, slots):
        self.slots = slots

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        base = inspect.getmro(type(self))[2]
        k_all, _ = base.planes(self, kv_cache)
        k = k_all.to(query.dtype)  # positive
        v_all = type(self).__mro__[2].planes(self, kv_cache)[1].half()  # positive
        k_rows, _ = self.__class__.__base__.planes(self, kv_cache)
        r = k_rows.to(query.dtype)  # negative
        own, _ = self.planes(kv_cache)
        o = own.to(query.dtype)  # negative
        return k, v_all, r, o
""",
    # f2: a class attribute naming the builder class, overridden in a subclass (TRT-LLM style): the
    # subclass's builder stores the whole layer buffer on the record after building it; the base's
    # builder stores only the step's block ids
    "builder_cls_override": """
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass
class StepMeta:
    kv_lens: torch.Tensor
    block_ids: Optional[torch.Tensor] = None
    full: Optional[torch.Tensor] = None

    @classmethod
    def make(cls, metadata, layer_idx):
        meta = cls(metadata.kv_lens_cuda)
        meta.block_ids = metadata.block_ids_per_seq
        return meta


@dataclass
class FullStepMeta(StepMeta):
    @classmethod
    def make(cls, metadata, layer_idx):
        meta = super().make(metadata, layer_idx)
        meta.full = metadata.kv_cache_manager.get_buffers(layer_idx)
        return meta


class BuilderAttention:
    meta_type = StepMeta

    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        meta = self.meta_type.make(metadata, self.layer_idx)
        ids = meta.block_ids.to(torch.int32)  # negative
        lens = meta.kv_lens.to(torch.int32)  # negative
        if meta.full is None:
            return ids, lens
        return meta.full.to(q.dtype), ids, lens  # positive


class FullAttention(BuilderAttention):
    meta_type = FullStepMeta
""",
    # f2: a class attribute holding the class to construct, overridden in a subclass (sglang style): either
    # class may be built; a holder no subclass overrides builds only the gathering reader
    "held_class_override": """
import torch


class RowsReader:
    def __init__(self, pool, layer_id, loc):
        self.pool, self.layer_id, self.loc = pool, layer_id, loc

    def read(self):
        return self.pool.get_value_buffer(self.layer_id)[self.loc]


class WholeReader(RowsReader):
    def read(self):
        return self.pool.get_value_buffer(self.layer_id)


class ReaderBackend:
    reader_cls = RowsReader
    rows_cls = RowsReader

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool, loc = forward_batch.token_to_kv_pool, forward_batch.out_cache_loc
        whole = self.reader_cls(pool, layer.layer_id, loc).read().to(q.dtype)  # positive
        rows = self.rows_cls(pool, layer.layer_id, loc).read().to(q.dtype)  # negative
        return whole, rows


class WholeReaderBackend(ReaderBackend):
    reader_cls = WholeReader
""",
    # f2: a metaclass inherited twice over: through a base class, and its __getattr__ from a base
    # metaclass (lmdeploy style); the class attribute is a look-alike
    "inherited_metaclass": """
import torch


class _CacheMeta(type):
    def __getattr__(cls, name):
        return cls.engine.gpu_cache[int(name[1:])]


class _LayerMeta(_CacheMeta):
    pass


class CacheBase(metaclass=_LayerMeta):
    engine = None
    scales = torch.ones(1)


class LayerCaches(CacheBase):
    pass


class MetaAttention:
    def forward(self, query, key, value, past_key_value, attn_metadata, k_scales_zeros=None):
        k_cache, v_cache = LayerCaches.L0
        k = k_cache.to(query.dtype)  # positive
        s = LayerCaches.scales.to(query.dtype)  # negative
        sz = k_scales_zeros.to(query.dtype)  # negative
        return k, v_cache, s, sz
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


SELF_FED_WALK = """
import torch


class Walker:
    def __init__(self, pool):
        self.pool = pool
        self.start = self

    def advance(self):
        return self

    def forward_decode(self, q, k, v, layer, forward_batch):
        h = self.start
        for _ in range(3):
            h = h.child.advance()  # the receiver's class is asked of what this very call returns
        buf = self.pool.get_key_buffer(layer.layer_id)
        return buf.to(q.dtype), h  # positive CL001
"""


def test_a_name_fed_by_its_own_method_call_terminates(tmp_path):
    """`h = h.child.advance()` in a loop: the class of the receiver is read from what the call returns,
    which reads the receiver again. Each step takes the caller's depth (it once restarted at 0 and
    recursed until Python's limit, reported as 'nested too deeply')."""
    path = tmp_path / "walk.py"
    path.write_text(SELF_FED_WALK)
    found = _check(path, False)  # asserts no error
    line = next(i for i, t in enumerate(SELF_FED_WALK.splitlines(), 1) if "# positive CL001" in t)
    assert [(code, at) for code, at, _ in found] == [("CL001", line)]
    assert _check(path, True) == found
