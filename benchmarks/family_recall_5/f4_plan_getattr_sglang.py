"""The MLA plan method reached with getattr and a constant name."""

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class GetattrPlanBackend:
    _PLAN = "plan"

    def __init__(self, model_runner, workspace):
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # fp8 pool
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace)
        self.heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.sm_scale = model_runner.model_config.scaling
        self.pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_meta
        planner = getattr(self.decode_wrapper, "plan")
        planner(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.heads, 512, 64, 1, False, self.sm_scale, self.data_type, self.data_type)  # positive: f4 CL002 plan bound through getattr, kv dtype is the model dtype

    def replan_native(self, forward_batch):
        m = forward_batch.mla_meta
        getattr(self.decode_wrapper, self._PLAN)(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.heads, 512, 64, 1, False, self.sm_scale, q_data_type=self.data_type, kv_data_type=self.kv_cache_dtype)  # negative: kv dtype is the pool dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = getattr(self.pool, "get_key_buffer")(layer.layer_id)
        kv16 = kv.to(self.data_type)  # positive: f4 CL001 whole latent buffer from getattr(pool, "get_key_buffer")
        q_nope, q_pe = q.split([512, 64], dim=-1)
        return self.decode_wrapper.run(q_nope, q_pe, kv16[..., :512], kv16[..., 512:])
