"""FlashInfer MLA plan dtypes from dict(...) merged with explicit keywords."""

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class MergedPlanIndicesUpdater:
    def __init__(self, model_runner, workspace):
        self.q_dtype = model_runner.dtype
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # fp8_e4m3 pool
        self.num_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.sm_scale = model_runner.model_config.scaling

    def update_decode(self, qo_indptr, kv_indptr, kv_indices, kv_lens):
        geo = dict(num_heads=self.num_heads, head_dim_ckv=512, head_dim_kpe=64, page_size=1)
        types = dict(q_data_type=self.q_dtype)
        self.wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, **geo, causal=False, sm_scale=self.sm_scale, **types, kv_data_type=self.model_dtype)  # positive: f4 CL002 kv dtype keyword is the model dtype while the pool is FP8

    def update_decode_native(self, qo_indptr, kv_indptr, kv_indices, kv_lens):
        geo = {"num_heads": self.num_heads, "head_dim_ckv": 512, "head_dim_kpe": 64, "page_size": 1}
        types = {**{"q_data_type": self.q_dtype}, **{"kv_data_type": self.kv_cache_dtype}}
        self.wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, **geo, causal=False, sm_scale=self.sm_scale, **types)  # negative: kv dtype is the pool's FP8 dtype


class MergedPlanBackend:
    def __init__(self, model_runner, workspace):
        self.updater = MergedPlanIndicesUpdater(model_runner, workspace)
        self.pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_meta
        self.updater.update_decode(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 whole latent buffer cast to match the bf16 plan
        q_nope, q_pe = q.split([512, 64], dim=-1)
        return self.updater.wrapper.run(q_nope, q_pe, kv[..., :512], kv[..., 512:])
