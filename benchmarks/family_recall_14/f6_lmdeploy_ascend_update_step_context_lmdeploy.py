"""A hardware ops backend whose per-step update_step_context upcasts FP8 caches."""
import torch


class DefaultOpsBackend:
    @classmethod
    def update_step_context(cls, step_context):
        return step_context


class AscendOpsBackend(DefaultOpsBackend):
    fp8_kv_unsupported = True

    @classmethod
    def update_step_context(cls, step_context):
        step_context = super().update_step_context(step_context)
        first_k = step_context.kv_caches[0][0]
        if cls.fp8_kv_unsupported and first_k.dtype == torch.float8_e4m3fn:
            new_caches = []
            for k_cache, v_cache, *rest in step_context.kv_caches:
                k16 = k_cache.to(torch.float16)  # positive: f6 CL001 whole key cache, every step (called by the model agent)
                v16 = v_cache.to(torch.float16)  # positive: f6 CL001 whole value cache, every step
                new_caches.append((k16, v16, *rest))
            step_context.kv_caches = new_caches
        step_context.q_seqlens = step_context.q_seqlens.to(torch.int32)  # negative: lengths
        step_context.block_offsets = step_context.block_offsets.to(torch.int32)  # negative: block table
        return step_context
