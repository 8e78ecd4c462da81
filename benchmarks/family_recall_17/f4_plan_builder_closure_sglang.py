"""sglang FlashInfer MLA: a module-level builder returns the decode planner as a closure
over the dtypes picked at init; init_forward_metadata calls it every step."""
import torch


def make_decode_planner(wrapper, num_heads, kv_lora_rank, rope_dim, sm_scale, q_dtype, kv_dtype):
    def plan_decode(qo_indptr, kv_indptr, kv_indices, kv_lens):
        wrapper.plan(  # positive: f4 CL002 the closure's kv_dtype is model_runner.dtype for an FP8 pool
            qo_indptr, kv_indptr, kv_indices, kv_lens, num_heads, kv_lora_rank, rope_dim, 1, False, sm_scale,
            q_dtype,
            kv_dtype,
        )

    return plan_decode


class FlashInferMLAClosureBackend:
    def __init__(self, model_runner, wrapper, draft_wrapper):
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.draft_wrapper = draft_wrapper
        self._plan_decode = make_decode_planner(
            wrapper, 16, 512, 64, 0.1, model_runner.dtype, model_runner.dtype
        )

    def init_forward_metadata(self, forward_batch):
        m = self._indices(forward_batch)
        self._plan_decode(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens)
        if forward_batch.spec_info is not None:
            self.draft_wrapper.plan(  # negative: planned with the pool's own dtype
                m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, 16, 512, 64, 1, False, 0.1,
                self.kv_cache_dtype, self.kv_cache_dtype,
            )

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f4 CL001 the conversion the bf16 plan forces
        return k_buf
