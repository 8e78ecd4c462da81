"""sglang torch-native extend: buf[: len(buf)] (every slot) against buf[: prefix_end] (a prefix)."""
import torch


class TorchNativeFp8Backend:
    def __init__(self, model_runner):
        self.device = model_runner.device

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        key_buf = pool.get_key_buffer(layer.layer_id)
        value_buf = pool.get_value_buffer(layer.layer_id)
        if forward_batch.extend_prefix_lens_cpu and max(forward_batch.extend_prefix_lens_cpu) > 0:
            key = key_buf[: len(key_buf)].to(q.dtype)  # positive: f5 CL001 full-length slice keeps every slot
            value = value_buf[: value_buf.shape[0]].to(q.dtype)  # positive: f5 CL001 full-length slice keeps every slot
        else:
            end = forward_batch.seq_lens_cpu.max().item()
            key = key_buf[:end].to(q.dtype)  # negative: used prefix only
            value = value_buf[:end].to(q.dtype)  # negative: used prefix only
        return q, key, value
