import torch


def _dequant_layer(buf: torch.Tensor, scale: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    assert buf.dtype == torch.float8_e4m3fn, buf.dtype
    return buf.to(dtype) * scale.to(dtype)  # positive: f4 CL001 helper receives whole layer buffers only


def _dequant_blocks(buf, block_ids, scale, dtype):
    return buf[block_ids].to(dtype) * scale  # negative: gathered blocks


class TrtllmFp8FallbackAttention:
    def __init__(self, layer_idx, kv_scale):
        self.layer_idx = layer_idx
        self.kv_scale = kv_scale

    def forward(self, q, k, v, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        assert buf.dim() == 5
        dense = _dequant_layer(buf, self.kv_scale, q.dtype)
        ctx = _dequant_blocks(buf, metadata.kv_cache_block_offsets[0, 0], self.kv_scale, q.dtype)
        return dense, ctx
