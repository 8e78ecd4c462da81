"""Issue 19, round 17 (family_recall_15: f4 call indirection, f6 connectors, f5's split false positive, the
CL001/CL004 boundary, f7 under "uses"), in sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- TRT-LLM's KvCacheConnectorWorker.register_kv_caches(kv_cache_tensor) (rules/conventions.toml, blocks first):
  `pool[:, layer]` is one layer of every block, `pool[block]` one block; a conversion that also moves to the
  host (`.to("cpu", dt)`) is reported once, the host copy is no pool;
- split/chunk/tensor_split along dimension 0 of a blocks-first cache: each piece some blocks;
- `**(base | extra)`, `**dict(k=v)` bind a helper's keyword parameters (the right operand's keys win), and a
  `.to(dtype or self.compute_dtype)` argument is a dtype;
- a for index over a name, a self attribute or a parameter holding a range is a scalar (a generator yielding
  `mgr.get_buffers(i)` for i in it gives whole layers);
- `kv_caches` entries (vLLM's runner, lmdeploy's StepContext) may hold their planes first: `c[0]` is every
  block's K (also through a classmethod factory building a reader);
- a FlashInfer wrapper that a parameter's object builds (`runner.make_wrapper()`) names no class: the plan
  call's arity decides (CL002);
- a class's item protocol (`__getitem__`) converting the whole layer is a pool accessor (CL004).
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import FILLER
from marked_cases import check as _check
from package_cases import write_tree
from test_call_indirection_11 import _findings, _marked, _own_tree_cache  # noqa: F401

CASES = {
    "connector_worker_trtllm": """\
import torch


class DiskSpillConnectorWorker:
    def __init__(self, llm_args):
        self.spill_dtype = torch.bfloat16
        self._pool = None
        self.staged = []

    def register_kv_caches(self, kv_cache_tensor):
        self._pool = kv_cache_tensor
        self._probe = kv_cache_tensor.float()  # negative: one-time setup

    def save_kv_layer(self, layer_idx, stream):
        keys = self._pool[:, layer_idx, 0].to(self.spill_dtype)  # positive: CL001
        host = self._pool[:, layer_idx].to(device="cpu", dtype=self.spill_dtype)  # positive: CL001
        self.staged.append(host)
        head = self._pool[0].to(self.spill_dtype)  # negative: one block
        return keys

    def save_blocks(self, block_ids):
        ids = torch.tensor(block_ids)
        picked = self._pool[ids].half()  # negative: gathered blocks
        column = self._pool[:, ids].half()  # negative: an index tensor after the blocks
        return picked, column

    def wait_for_save(self, stream):
        return [t.float() for t in self.staged]  # negative: host copies, already converted

    def split_views(self):
        eighth = torch.chunk(self._pool, 8)[0].half()  # negative: an eighth of the blocks
        layers = self._pool.tensor_split(4, dim=1)[0].half()  # positive: CL001
        return eighth, layers
""",
    "dim0_split_lmdeploy": """\
import torch


class ChunkedDecodeImpl:
    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        lo_heads = k_cache.chunk(2, dim=-1)[0].float()  # positive: CL001
        rope = torch.split(v_cache, [64, 64], dim=-1)[1].half()  # positive: CL001
        half_blocks = k_cache.chunk(2, 0)[0].float()  # negative: half of the blocks
        first = torch.tensor_split(v_cache, 3)[0].half()  # negative: a third of the blocks
        return lo_heads, rope, half_blocks, first
""",
    "kwargs_union_sglang": """\
import torch


class KwargsFallbackBackend:
    def __init__(self, model_runner):
        self.compute_dtype = model_runner.dtype

    def _dense(self, q, *, buf, dtype=None, scale=1.0):
        return buf.to(dtype or self.compute_dtype) * scale  # positive: CL001

    def _rows(self, q, *, buf, dtype=None):
        return buf.to(dtype or self.compute_dtype)  # negative: the right operand's gathered rows win

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        opts = {"buf": forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)}
        dense = self._dense(q, **({"scale": layer.scaling} | opts))
        rows = opts["buf"][forward_batch.out_cache_loc]
        picked = self._rows(q, **(opts | {"buf": rows}))
        return dense, picked
""",
    "generator_layers_trtllm": """\
import torch


def walk(mgr, layer_ids):
    for i in layer_ids:
        yield mgr.get_buffers(i)


def blocks_of(buf, block_ids):
    for b in block_ids:
        yield buf[b]


class LayerSweepStep:
    def __init__(self, mgr, num_layers, num_blocks):
        self.mgr = mgr
        self.layer_ids = range(num_layers)
        self.block_ids = range(num_blocks)

    def forward(self, q, attn_metadata):
        widened = {n: buf.float() for n, buf in enumerate(walk(self.mgr, self.layer_ids))}  # positive: CL001
        for lid in self.layer_ids:
            vals = self.mgr.get_buffers(lid)[:, 1].half()  # positive: CL001
        one = [blk.half() for blk in blocks_of(self.mgr.get_buffers(0), self.block_ids)]  # negative: one block each
        for b in self.block_ids:
            single = self.mgr.get_buffers(0)[b].float()  # negative: one block
        return widened, vals, one, single
""",
    "step_kv_caches_lmdeploy": """\
import torch


class ValueReader:
    def __init__(self, caches, dtype):
        self.caches = caches
        self.dtype = dtype

    @classmethod
    def of(cls, ctx, dtype):
        return cls([entry[1] for entry in ctx.kv_caches], dtype)

    def read(self, i):
        return self.caches[i].to(self.dtype)  # positive: CL001


class QwenAttention:
    def forward(self, hidden_states, past_key_value, attn_metadata, step_ctx):
        vals = ValueReader.of(step_ctx, hidden_states.dtype).read(0)
        keys = step_ctx.kv_caches[0][0].half()  # positive: CL001
        scales = step_ctx.kv_caches[0][2].float()  # negative: the entry's scales/zeros
        rows = step_ctx.kv_caches[0][0][attn_metadata.block_offsets].half()  # negative: gathered blocks
        return vals, keys, scales, rows
""",
    "plan_factory_wrapper_sglang": """\
class MLADecodeUpdater:
    def __init__(self, runner):
        self.runner = runner
        self.kv_cache_dtype = runner.kv_cache_dtype
        self.wrapper = runner.build_decode_wrapper("mla")

    @property
    def _dtypes(self):
        return self.runner.dtype, self.runner.dtype

    def _native(self):
        return self.runner.dtype, self.kv_cache_dtype

    def update(self, b):
        q_dt, kv_dt = self._dtypes
        self.wrapper.plan(  # positive: CL002
            b.qo_indptr, b.kv_indptr, b.kv_indices, b.kv_lens, 16, 512, 64, 1, False, 0.1, q_dt, kv_dt,
        )

    def update_native(self, b):
        q_dt, kv_dt = self._native()
        self.wrapper.plan(  # negative: kv dtype is the pool's
            b.qo_indptr, b.kv_indptr, b.kv_indices, b.kv_lens, 16, 512, 64, 1, False, 0.1, q_dt, kv_dt,
        )
""",
    "item_accessor_trtllm": """\
import torch


class HalfViewManager:
    def __init__(self, impl):
        self.impl = impl

    def get_buffers(self, layer_idx):
        return self.impl.get_primary_pool_data(layer_idx)

    def __getitem__(self, layer_idx):
        return self.get_buffers(layer_idx).half()  # positive: CL004

    def scales(self, layer_idx):
        return self.impl.get_scale_data(layer_idx).float()  # negative: scales


class BlockPicker:
    def __init__(self, mgr, ids):
        self.mgr = mgr
        self.ids = ids

    def __getitem__(self, layer_idx):
        return self.mgr.get_buffers(layer_idx)[self.ids].half()  # negative: gathered blocks


class Attn:
    def forward(self, q, k, v, attn_metadata):
        kv = attn_metadata.kv_cache_manager[self.layer_idx]
        rows = BlockPicker(attn_metadata.kv_cache_manager, attn_metadata.block_ids)[0]
        return kv, rows
""",
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_marked_lines(tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name])
    lines = CASES[name].splitlines()
    found = {(code, line) for code, line, _ in _check(path, False)}
    positives = {
        (text.split("# positive: ")[1].split()[0], i) for i, text in enumerate(lines, 1) if "# positive" in text
    }
    negatives = {i for i, text in enumerate(lines, 1) if "# negative" in text}
    assert positives and negatives
    assert positives - found == set()
    assert {line for _, line in found} & negatives == set()


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("filler", [False, True], ids=["as-is", "with-filler"])
def test_pruned_is_whole(tmp_path, name, filler):
    path = tmp_path / f"{name}.py"
    path.write_text(CASES[name] + (FILLER if filler else ""))
    assert _check(path, True) == _check(path, False)


PACKAGES = {
    "runner_hooks_vllm": {
        "pkg/__init__.py": "",
        "pkg/probes.py": """
            import torch


            def value_planes(kv_caches, dtype):
                return [c[1].to(dtype) for c in kv_caches]  # positive: CL001


            def picked(kv_caches, ids):
                return [c[:, ids].float() for c in kv_caches]  # negative: gathered blocks
        """,
        "pkg/runner.py": """
            import torch

            from .probes import picked, value_planes


            class ProbedModelRunner:
                def __init__(self, vllm_config):
                    self.kv_caches = []

                def execute_model(self, scheduler_output, intermediate_tensors=None):
                    a = value_planes(self.kv_caches, torch.float32)
                    b = picked(self.kv_caches, scheduler_output.block_ids)
                    return a, b
        """,
    },
}


@pytest.mark.usefixtures("_own_tree_cache")
@pytest.mark.parametrize("name", sorted(PACKAGES))
def test_packages_under_uses(tmp_path, name):
    write_tree(tmp_path, PACKAGES[name])
    found = _findings(tmp_path, "uses")
    positives, negatives = _marked(tmp_path, "# positive"), _marked(tmp_path, "# negative")
    assert negatives
    assert positives <= found
    assert found & negatives == set()
    assert _findings(tmp_path, "uses", prune=False) == found
