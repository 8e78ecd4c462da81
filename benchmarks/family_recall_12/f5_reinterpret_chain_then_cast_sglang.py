import torch


class ArenaMLABackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        raw = pool.kv_buffer[layer.layer_id - pool.start_layer]
        as_bytes = raw.view(torch.uint8)  # negative: reinterpret only
        as_fp8 = as_bytes.view(torch.float8_e4m3fn)  # negative: reinterpret only
        dense = as_fp8.to(q.dtype)  # positive: f5 CL001 conversion after a uint8 -> fp8 reinterpret chain of the whole layer
        promoted = raw.to(torch.promote_types(q.dtype, torch.float32))  # positive: f5 CL001 dtype from torch.promote_types (fp32)
        same = raw.to(raw.dtype)  # negative: same dtype
        return dense, promoted, same
