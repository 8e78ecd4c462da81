"""FlashInfer wrappers held by an updater object; plan() called through it."""
from dataclasses import dataclass

import torch
from flashinfer import BatchDecodeWithPagedKVCacheWrapper

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class DecodeUpdater:
    def __init__(self, backend):
        self.wrappers = backend.decode_wrappers
        self.q_data_type = backend.q_data_type
        self.kv_data_type = backend.kv_data_type
        self.kv_pool = backend.pool

    def update(self, kv_indptr, kv_indices, kv_last_page_len, num_qo_heads, num_kv_heads, head_dim):
        for w in self.wrappers:
            w.plan(  # positive: f1 CL002 plan forces the kv dtype to the query dtype
                kv_indptr, kv_indices, kv_last_page_len,
                num_qo_heads, num_kv_heads, head_dim, 1,
                q_data_type=self.q_data_type,
                kv_data_type=self.q_data_type,
            )

    def update_ok(self, kv_indptr, kv_indices, kv_last_page_len, num_qo_heads, num_kv_heads, head_dim):
        for w in self.wrappers:
            w.plan(  # negative: kv dtype follows the pool
                kv_indptr, kv_indices, kv_last_page_len,
                num_qo_heads, num_kv_heads, head_dim, 1,
                q_data_type=self.q_data_type,
                kv_data_type=self.kv_data_type,
            )

    def dense_cache(self, layer_id):
        return self.kv_pool.get_kv_buffer(layer_id)


class UpdaterBackend(AttentionBackend):
    def __init__(self, model_runner, workspace):
        super().__init__()
        self.pool = model_runner.token_to_kv_pool
        self.q_data_type = model_runner.dtype
        self.kv_data_type = model_runner.kv_cache_dtype
        self.decode_wrappers = [BatchDecodeWithPagedKVCacheWrapper(workspace, "NHD")]
        self.updater = DecodeUpdater(self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self.updater.dense_cache(layer.layer_id)
        k_buf = k_buf.to(self.q_data_type)  # positive: f1 CL001 updater object hands out the pool
        return self.decode_wrappers[0].run(q.view(-1, layer.tp_q_head_num, layer.head_dim), (k_buf, v_buf))
