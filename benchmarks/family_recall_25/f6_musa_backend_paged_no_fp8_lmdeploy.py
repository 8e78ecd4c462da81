import torch


class MUSAOpsBackend:
    @staticmethod
    def get_name():
        return "musa"

    @classmethod
    def update_step_context(cls, step_context):
        kv_caches = step_context.kv_caches
        if step_context.kv_quant_policy == 0 and kv_caches and kv_caches[0][0].dtype == torch.float8_e4m3fn:
            step_context.kv_caches = [(k.to(torch.float16), v.to(torch.float16)) for k, v in kv_caches]  # positive: f6 CL001 MUSA kernels lack FP8: each whole layer cache widened per step
        step_context.q_start_loc = step_context.q_start_loc.to(torch.int32)  # negative: start locations
        step_context.kv_seqlens = step_context.kv_seqlens.to(step_context.q_start_loc.device)  # negative: .to(device)
        return step_context

    @staticmethod
    def init_caches(cache_config, k_shape, v_shape):
        k = torch.empty(k_shape, dtype=torch.float8_e4m3fn, device="musa")
        return k, k.to(torch.float16)  # negative: setup
