"""Per-step attention path (grad mode blocks sglang).

Look-alikes sit beside each whole-cache conversion.
"""
import torch


class AmxCpuBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch):
        with torch.no_grad():
            key = self.pool.get_key_buffer(layer.layer_id).to(torch.bfloat16)  # positive: f5 CL001 inside no_grad
        with torch.inference_mode(), torch.autocast("cpu", enabled=False):
            value = self.pool.get_value_buffer(layer.layer_id).to(dtype=torch.bfloat16)  # positive: f5 CL001 dtype keyword inside inference_mode
        with torch.inference_mode():
            same = self.pool.get_value_buffer(layer.layer_id).to(dtype=self.pool.dtype)  # negative: to the pool's own dtype
            loc = self.pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(torch.bfloat16)  # negative: new rows
        return key, value, same, loc
