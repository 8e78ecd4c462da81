import operator

import torch
from flashinfer import BatchMLAPagedAttentionWrapper

_MODEL_DTYPE_PAIR = operator.attrgetter("dtype", "dtype")


class FlashInferMLADecodeBackend:
    def __init__(self, model_runner, workspace):
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # torch.float8_e4m3fn with --kv-cache-dtype fp8_e4m3
        self.plan_dtypes = _MODEL_DTYPE_PAIR(model_runner)  # (model dtype, model dtype)
        self.num_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.sm_scale = model_runner.model_config.scaling
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="auto")

    def init_forward_metadata(self, forward_batch):
        m = self._indices(forward_batch)
        self.decode_wrapper.plan(  # positive: f4 CL002 q/kv dtypes both the model dtype via operator.attrgetter, pool is fp8
            m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens,
            self.num_heads, self.kv_lora_rank, self.qk_rope_head_dim, 1, False, self.sm_scale,
            *self.plan_dtypes,
        )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        k_buf = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 whole MLA layer to the planned dtype
        q_nope, q_rope = q.view(-1, self.num_heads, 576).split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        k_new = k.view(-1, 1, 576).to(q.dtype)  # negative: new tokens (batch tensor)
        return self.decode_wrapper.run(q_nope, q_rope, k_buf[..., : self.kv_lora_rank], k_buf[..., self.kv_lora_rank :]), k_new
