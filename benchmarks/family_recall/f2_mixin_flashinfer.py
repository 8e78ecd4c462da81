"""FlashInfer-style backend with a KV access mixin; FP8 fallback for an unsupported head dim."""
from __future__ import annotations

from dataclasses import dataclass

import torch
from flashinfer import BatchDecodeWithPagedKVCacheWrapper

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class KVAccessMixin:
    def _pool_k(self, forward_batch, layer):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def _pool_v(self, forward_batch, layer):
        return forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)


class FallbackMixin:
    def _upcast_pair(self, forward_batch, layer, dtype):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(dtype)  # positive: f2 CL001 conversion in a mixin
        v_buf = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id).to(dtype)  # positive: f2 CL001 conversion in a mixin
        return k_buf, v_buf


@dataclass
class DecodeMetadata:
    wrapper: BatchDecodeWithPagedKVCacheWrapper


class MixinFlashInferBackend(KVAccessMixin, FallbackMixin, AttentionBackend):
    def __init__(self, model_runner, workspace):
        super().__init__()
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.q_dtype = model_runner.dtype
        self.wrapper = BatchDecodeWithPagedKVCacheWrapper(workspace, "NHD")

    def init_forward_metadata(self, forward_batch, kv_indptr, kv_indices, last_page_len):
        self.wrapper.plan(  # negative: plan keeps the kv dtype of the cache
            kv_indptr, kv_indices, last_page_len,
            32, 8, 128, 1,
            data_type=self.kv_cache_dtype,
            q_data_type=self.q_dtype,
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if layer.head_dim not in (64, 128, 256):
            k_buf, v_buf = self._upcast_pair(forward_batch, layer, q.dtype)
            return self._ref(q, k_buf, v_buf)
        k_buf = self._pool_k(forward_batch, layer).to(q.dtype)  # positive: f2 CL001 mixin accessor
        return self.wrapper.run(q, (k_buf, self._pool_v(forward_batch, layer)))

    def _ref(self, q, k, v):
        return torch.empty_like(q)
