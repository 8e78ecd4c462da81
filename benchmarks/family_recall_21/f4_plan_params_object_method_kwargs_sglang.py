from dataclasses import dataclass

import torch


@dataclass
class MLAPlanParams:
    num_heads: int
    kv_lora_rank: int
    qk_rope_head_dim: int
    sm_scale: float
    q_dtype: torch.dtype
    kv_dtype: torch.dtype

    def dtype_kwargs(self):
        return {"q_data_type": self.q_dtype, "kv_data_type": self.kv_dtype}


class FlashInferMLAIndicesUpdaterDecode:
    def __init__(self, model_runner, wrapper):
        cfg = model_runner.model_config
        self.wrapper = wrapper
        self.params = MLAPlanParams(cfg.num_attention_heads, cfg.kv_lora_rank, cfg.qk_rope_head_dim,
                                    cfg.scaling, model_runner.dtype, model_runner.dtype)
        self.native = MLAPlanParams(cfg.num_attention_heads, cfg.kv_lora_rank, cfg.qk_rope_head_dim,
                                    cfg.scaling, model_runner.dtype, model_runner.kv_cache_dtype)

    def update(self, qo_indptr, kv_indptr, kv_indices, kv_lens, page_size, use_native: bool):
        p = self.native if use_native else self.params
        if use_native:
            self.wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, p.num_heads, p.kv_lora_rank, p.qk_rope_head_dim, page_size, False, p.sm_scale, **p.dtype_kwargs())  # negative: native plan, kv dtype is the pool's
        else:
            self.wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, p.num_heads, p.kv_lora_rank, p.qk_rope_head_dim, page_size, False, p.sm_scale, **self.params.dtype_kwargs())  # positive: f4 CL002 kv_data_type is the model dtype via a method's dict
