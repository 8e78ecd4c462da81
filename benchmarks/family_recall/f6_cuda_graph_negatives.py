"""CUDA-graph capture/replay paths: lots of casts, none of a whole pool."""
from dataclasses import dataclass

import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


@dataclass
class GraphBuffers:
    kv_indptr: torch.Tensor
    kv_indices: torch.Tensor
    seq_lens: torch.Tensor
    k_stage: torch.Tensor


class GraphSafeBackend(AttentionBackend):
    def __init__(self, model_runner):
        super().__init__()
        self.pool = model_runner.token_to_kv_pool
        self.max_bs = model_runner.req_to_token_pool.size
        self.max_ctx = model_runner.model_config.context_len
        self.kv_dtype = model_runner.kv_cache_dtype

    def init_cuda_graph_state(self, max_bs, max_num_tokens):
        k0 = self.pool.get_key_buffer(0)
        self.graph = GraphBuffers(
            kv_indptr=torch.zeros((max_bs + 1,), dtype=torch.int32, device="cuda"),
            kv_indices=torch.zeros((max_bs * self.max_ctx,), dtype=torch.int32, device="cuda"),
            seq_lens=torch.ones((max_bs,), dtype=torch.int32, device="cuda"),
            k_stage=torch.empty((max_num_tokens, *k0.shape[1:]), dtype=torch.bfloat16, device="cuda"),  # negative: staging sized by tokens, not the pool
        )

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        self.graph.seq_lens[:bs].copy_(seq_lens.to(torch.int32))  # negative: seq_lens metadata
        self.graph.kv_indptr[1: bs + 1] = torch.cumsum(seq_lens[:bs], dim=0).to(torch.int32)  # negative: metadata cumsum
        ptr = self.pool.get_key_buffer(0).data_ptr()  # negative: pointer only
        return ptr

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        n = forward_batch.out_cache_loc.numel()
        stage = self.graph.k_stage[:n]
        stage.copy_(self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc])  # negative: copies gathered rows into the staging buffer
        q_kv = q.to(self.kv_dtype)  # negative: query cast to the kv dtype
        kv_bytes = self.pool.get_key_buffer(layer.layer_id).element_size() * self.pool.get_key_buffer(layer.layer_id).numel()  # negative: size arithmetic
        return stage, q_kv, kv_bytes

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k.to(self.kv_dtype), v.to(self.kv_dtype))  # negative: new-token store casts
        total = int(forward_batch.seq_lens_sum)
        prefix = self.pool.get_key_buffer(layer.layer_id)[:total].to(q.dtype)  # negative: active-prefix slice
        isfp8 = self.pool.get_key_buffer(layer.layer_id).dtype == torch.float8_e4m3fn  # negative: dtype comparison
        return prefix, isfp8
