"""sglang MLA pool stored as a uint8 arena: `.view(fp8)` only reinterprets; a conversion
after the view is a whole-layer conversion."""
import torch


class TorchMLAFallbackBackend:
    def __init__(self, model_runner):
        self.store_dtype = torch.uint8
        self.kv_dtype = torch.float8_e4m3fn

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        raw = pool.kv_buffer[layer.layer_id - pool.start_layer]
        fp8 = raw.view(self.kv_dtype)  # negative: zero-copy reinterpretation
        dense = raw.view(self.kv_dtype).to(q.dtype)  # positive: f5 CL001 whole layer converted after the view
        return self._mla(q, dense, fp8, layer)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        raw = pool.kv_buffer[layer.layer_id - pool.start_layer]
        bytes_again = pool.get_key_buffer(layer.layer_id).view(torch.uint8)  # negative: back to the arena view
        ref = raw.view(self.kv_dtype).float()  # positive: f5 CL001 whole layer widened to fp32
        return self._mla(q, ref, bytes_again, layer)

    def _mla(self, q, kv, other, layer):
        return q
