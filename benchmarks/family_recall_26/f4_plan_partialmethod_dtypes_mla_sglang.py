import functools

import torch


class FlashInferMLADecodePlanner:
    def __init__(self, wrapper, model_dtype, kv_cache_dtype, num_heads, sm_scale):
        self.wrapper = wrapper
        self.model_dtype = model_dtype
        self.kv_cache_dtype = kv_cache_dtype
        self.num_heads = num_heads
        self.sm_scale = sm_scale

    def _plan(self, qo_indptr, kv_indptr, kv_indices, kv_lens, q_dtype, kv_dtype):
        self.wrapper.plan(  # positive: f4 CL002 dtypes bound by partialmethod, kv planned as the model dtype while the pool is FP8
            qo_indptr, kv_indptr, kv_indices, kv_lens,
            self.num_heads, 512, 64, 1, False, self.sm_scale,
            q_dtype, kv_dtype,
        )

    plan_model_dtype = functools.partialmethod(_plan, q_dtype=torch.bfloat16, kv_dtype=torch.bfloat16)


class FlashInferMLABackendLite:
    def __init__(self, model_runner, wrapper):
        self.pool = model_runner.token_to_kv_pool
        self.planner = FlashInferMLADecodePlanner(wrapper, model_runner.dtype, model_runner.kv_cache_dtype, 16, 0.1)

    def init_forward_metadata(self, fb):
        self.planner.plan_model_dtype(fb.qo_indptr, fb.kv_indptr, fb.kv_indices, fb.seq_lens)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buffer = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 whole latent buffer cast to match the plan
        q = q.to(k_buffer.device)  # negative: device move of the query
        return self.planner.wrapper.run(q[..., :512], q[..., 512:], k_buffer[..., :512], k_buffer[..., 512:])
