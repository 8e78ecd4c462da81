"""EAGLE draft / target-verify attention that reads the target pool through a shared view object."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend
from sglang.srt.speculative.eagle_utils import EagleDraftInput, EagleVerifyInput


class TargetPoolView:
    def __init__(self, token_to_kv_pool, start_layer=0):
        self._pool = token_to_kv_pool
        self.start_layer = start_layer

    @property
    def pool(self):
        return self._pool

    def k_of(self, layer_id):
        return self._pool.get_key_buffer(layer_id)

    def v_of(self, layer_id):
        return self._pool.get_value_buffer(layer_id)


@dataclass
class DraftStepState:
    topk: int
    step: int
    positions: torch.Tensor
    cache_loc: torch.Tensor


class MultiStepDraftBackend(AttentionBackend):
    def __init__(self, model_runner, topk, speculative_num_steps):
        super().__init__()
        self.view = TargetPoolView(model_runner.token_to_kv_pool)
        self.topk = topk
        self.speculative_num_steps = speculative_num_steps

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        self.cuda_graph_kv = torch.zeros((bs * self.topk, 1), dtype=torch.int32, device="cuda")  # negative: buffer sized by batch

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        spec: EagleDraftInput = forward_batch.spec_info
        k_buf = self.view.k_of(layer.layer_id).to(q.dtype)  # positive: f1 CL001 view object method returns pool
        v_buf = self.view.pool.get_value_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 property returns the pool
        return self._draft_attn(q, k_buf, v_buf, spec)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        verify: EagleVerifyInput = forward_batch.spec_info
        draft_loc = forward_batch.out_cache_loc
        k_draft = self.view.k_of(layer.layer_id)[draft_loc].to(q.dtype)  # negative: gathers draft slots first
        v_draft = torch.index_select(self.view.v_of(layer.layer_id), 0, draft_loc).to(q.dtype)  # negative: index_select gather first
        return self._draft_attn(q, k_draft, v_draft, verify)

    def _draft_attn(self, q, k, v, spec):
        return torch.empty_like(q)
