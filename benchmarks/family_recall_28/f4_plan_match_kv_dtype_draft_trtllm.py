"""TensorRT-LLM two-model speculative decoding: a match statement picks the draft FlashInfer MLA plan dtypes."""
import torch


def _draft_plan_dtypes(kv_cache_dtype, model_dtype):
    match kv_cache_dtype:
        case torch.float8_e4m3fn | torch.float8_e5m2:
            return model_dtype, model_dtype
        case _:
            return model_dtype, kv_cache_dtype


class FlashInferMLADraftBackend:
    def __init__(self, kv_cache_manager, model_dtype, num_heads, sm_scale, draft_wrapper, target_wrapper):
        self.mgr = kv_cache_manager
        self.kv_cache_dtype = kv_cache_manager.dtype
        self.model_dtype = model_dtype
        self.num_heads = num_heads
        self.sm_scale = sm_scale
        self.draft_wrapper = draft_wrapper
        self.target_wrapper = target_wrapper

    def prepare(self, m):
        q_dt, kv_dt = _draft_plan_dtypes(self.kv_cache_dtype, self.model_dtype)
        self.draft_wrapper.plan(  # positive: f4 CL002 the FP8 case of the match forces q and kv to the model dtype
            m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, m.tokens_per_block, False, self.sm_scale,
            q_data_type=q_dt, kv_data_type=kv_dt,
        )
        self.target_wrapper.plan(  # negative: target plan declares the cache's own kv dtype
            m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.num_heads, 512, 64, m.tokens_per_block, True, self.sm_scale,
            q_data_type=self.model_dtype, kv_data_type=self.kv_cache_dtype,
        )

    def forward_draft(self, q, layer_idx, metadata):
        kv = self.mgr.get_buffers(layer_idx).to(self.model_dtype)  # positive: f4 CL001 whole layer buffer for the BF16 draft plan
        return self.draft_wrapper.run(q[..., :512], q[..., 512:], kv[..., :512], kv[..., 512:])
