"""MLA decode plan dtypes held in a dataclass config; the capture plan uses a replace()d copy."""
from dataclasses import dataclass, replace

import torch


@dataclass(frozen=True)
class MLAPlanConfig:
    q_dtype: torch.dtype
    kv_dtype: torch.dtype
    page_size: int = 1


class FlashInferMLADecodeBackend:
    def __init__(self, model_runner):
        self.plan_cfg = MLAPlanConfig(q_dtype=model_runner.dtype, kv_dtype=model_runner.dtype)
        self.native_cfg = replace(self.plan_cfg, kv_dtype=model_runner.kv_cache_dtype)
        self.num_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.scaling = model_runner.model_config.scaling

    def _plan(self, wrapper, meta, cfg):
        wrapper.plan(  # positive: f4 CL002 init_forward_metadata passes plan_cfg, whose kv_dtype is the model dtype
            meta.qo_indptr, meta.kv_indptr, meta.kv_indices, meta.kv_lens, self.num_heads,
            self.kv_lora_rank, self.qk_rope_head_dim, cfg.page_size, False, self.scaling,
            cfg.q_dtype, cfg.kv_dtype,
        )

    def init_forward_metadata(self, forward_batch):
        meta = self._build_indices(forward_batch)
        self._plan(self.decode_wrapper, meta, self.plan_cfg)

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, *args):
        meta = self._build_indices_for_capture(bs, req_pool_indices, seq_lens)
        self.cuda_graph_wrapper.plan(  # negative: native_cfg carries the pool's kv dtype
            meta.qo_indptr, meta.kv_indptr, meta.kv_indices, meta.kv_lens, self.num_heads,
            self.kv_lora_rank, self.qk_rope_head_dim, 1, False, self.scaling,
            self.native_cfg.q_dtype, self.native_cfg.kv_dtype,
        )
