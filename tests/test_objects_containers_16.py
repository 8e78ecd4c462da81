"""Issue 19, round 16 (family_recall_14: f1 through other objects, f2 class hierarchies, f3 containers), in
sglang, vLLM, lmdeploy and TRT-LLM styles other than the corpus's:
- a dict comprehension over an engine's entries holds entries (`{i: kv for i, kv in enumerate(gpu_cache)}`:
  `kv[0]` is every block's K), and a literal slice within an entry's cache planes keeps them (`[:2]`);
- a constant index, a slice start or an unpacked position past an entry's caches is its scales/zeros
  (rules/accessors.toml entry_cache_planes; conventions.toml `entry = true` for lmdeploy's past_key_value);
- a held list of records unpacked by position in a for target (`for lid, k, v in self.slots`) gives their
  fields, what each construction passes;
- a dict comprehension's key is a scalar index (`{i: mgr.get_buffers(i) for i in ids}`: the accessor's
  arity rule), so a ChainMap of such dicts reads whole buffers;
- a callable handed to a constructor, stored on self and called (`Observer(lambda: self.kv_caches)`): what
  the constructions pass;
- a mixin's method that a subclass's C3 MRO runs for `self.m(...)` in a sibling base reads what those calls
  pass; a mixin every subclass puts after another reader never runs. The pruner keeps such a class's header.
Each positive has look-alikes beside it; the pruned analysis gives the whole file's findings, with and
without filler."""

from __future__ import annotations

import pytest

from marked_cases import FILLER
from marked_cases import check as _check

CASES = {
    "dict_comp_entries_lmdeploy": """\
import torch


class EagerPagedFallback:
    def __init__(self, cache_engine):
        self.by_layer = {lid: entry for lid, entry in enumerate(cache_engine.gpu_cache)}
        self.offsets = {lid: torch.zeros(8, dtype=torch.int64) for lid in range(4)}

    def forward(self, query, key, value, attn_metadata, layer_idx):
        entry = self.by_layer[layer_idx]
        kc = entry[0].float()  # positive: CL001
        vc = (e := self.by_layer.get(layer_idx))[1].float()  # positive: CL001
        rows = entry[0][attn_metadata.block_offsets].float()  # negative: blocks gathered
        scales = entry[2].float()  # negative: the entry's k_scales_zeros
        offs = self.offsets[layer_idx].to(torch.int32)  # negative: offsets
        return kc, vc, rows, scales, offs, e
""",
    "entry_planes_lmdeploy": """\
import torch


class MigrationQueue:
    def __init__(self, cache_engine):
        self.gpu_cache = cache_engine.gpu_cache
        self.queued = []

    def stage(self, layer_idx):
        kc, vc = self.gpu_cache[layer_idx][:2]
        self.queued.append((layer_idx, kc, vc))

    def drain(self):
        sent = []
        while self.queued:
            lid, kc, vc = self.queued.pop(0)
            sent.append((lid, kc.half(), vc.half()))  # positive: CL001
        return sent


class LlamaModelFallback:
    def forward(self, input_ids, position_ids, past_key_values, attn_metadata):
        out = []
        for entry in past_key_values:
            kz, vz = entry[2:]
            k, v = entry[:2]
            out.append((k.half(), kz.float(), entry[3].float()))  # positive: CL001
        return out


class LlamaAttentionFallback:
    def forward(self, hidden_states, rotary_pos_emb, past_key_value, attn_metadata):
        k_cache, v_cache, k_sz, v_sz = past_key_value
        szs = past_key_value[2].float()  # negative: k_scales_zeros
        tail = [t.float() for t in past_key_value[2:]]  # negative: scales/zeros
        widened = k_sz.float()  # negative: k_scales_zeros
        dense = v_cache.float()  # positive: CL001
        return szs, tail, widened, dense
""",
    "record_for_unpack_vllm": """\
import collections

import torch

LayerView = collections.namedtuple("LayerView", "name kc vc")
LayerScale = collections.namedtuple("LayerScale", ["name", "scale"])


class MirrorConnector:
    def register_kv_caches(self, kv_caches):
        self.views = [LayerView(n, c[0], c[1]) for n, c in kv_caches.items()]
        self.scales = [LayerScale(n, torch.ones(1)) for n in kv_caches]

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        for name, kc, vc in self.views:
            if name == layer_name:
                self.mirror = (kc.to(torch.bfloat16), vc.to(torch.bfloat16))  # positive: CL001
        for name, kc, _ in self.views:
            self.rows = kc[attn_metadata.slot_mapping].to(torch.bfloat16)  # negative: slots gathered
        for name, scale in self.scales:
            self.s = scale.to(torch.float32)  # negative: a scale
""",
    "chainmap_comp_keys_trtllm": """\
from collections import ChainMap

import torch


class SpecDecodeAttention:
    def __init__(self, target_mgr, draft_mgr, target_ids, draft_ids):
        target = {lid: target_mgr.get_buffers(lid) for lid in target_ids}
        draft = {lid: draft_mgr.get_buffers(lid) for lid in draft_ids}
        self.merged = ChainMap(draft, target)
        self.lens = {lid: torch.zeros(16, dtype=torch.int32) for lid in target_ids}
        self.spare = torch.empty(64, 128, dtype=torch.float8_e4m3fn, device="cuda")

    def forward(self, q, k, v, metadata, layer_idx):
        whole = self.merged.get(layer_idx).to(torch.bfloat16)  # positive: CL001
        lens = self.lens[layer_idx].to(torch.int64)  # negative: lengths
        spare = self.merged.new_child({layer_idx: self.spare})[layer_idx].float()  # negative: the spare tensor
        block_ids = metadata.kv_cache_block_offsets[0, : metadata.num_seqs].flatten()
        picked = self.merged[layer_idx][block_ids].to(torch.bfloat16)  # negative: blocks gathered
        return whole, lens, spare, picked
""",
    "constructor_callable_sglang": """\
import torch


class LayerProbe:
    def __init__(self, buffers, lengths, every=8):
        self.buffers = buffers
        self.lengths = lengths
        self.every = every

    def on_step(self, step):
        for buf in self.buffers():
            self.last = buf.to(torch.float32).abs().amax()  # positive: CL001
        self.lens = self.lengths().to(torch.float32)  # negative: lengths


class ProbedRunner:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.seq_lens = torch.zeros(256, dtype=torch.int32)
        self.probe = LayerProbe(self._all_k, lambda: self.seq_lens, every=4)

    def _all_k(self):
        return [self.pool.get_key_buffer(i) for i in range(self.pool.start_layer, self.pool.end_layer)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.probe.on_step(forward_batch.batch_size)
        return q.float()  # negative: queries
""",
    "mro_mixins_vllm": """\
import torch


class WidenRead:
    def take(self, kv_cache, attn_metadata):
        return kv_cache.float()  # positive: CL001


class GatherRead:
    def take(self, kv_cache, attn_metadata):
        return kv_cache[:, attn_metadata.block_table].float()  # negative: blocks gathered


class HalfRead:
    def take(self, kv_cache, attn_metadata):
        return kv_cache.half()  # negative: every subclass puts another reader first


class TorchImplBase:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        kv = self.take(kv_cache, attn_metadata)
        return self._sdpa(query, kv, attn_metadata.seq_lens.to(torch.int32))  # negative: lengths


class Eager(WidenRead, HalfRead, TorchImplBase):
    pass


class Paged(GatherRead, HalfRead, TorchImplBase):
    pass
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
