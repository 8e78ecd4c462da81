import torch


class Materialize:
    def __init__(self, buf, dtype):
        self.buf = buf
        self.dtype = dtype
        self.out = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.out = self.buf.to(self.dtype)  # positive: f4 CL001 __exit__ of a context object given a whole manager buffer
        return False


class ExitConvertAttention:
    def __init__(self, layer_idx, dtype):
        self.layer_idx = layer_idx
        self.dtype = dtype

    def forward(self, q, k, v, attn_metadata, **kwargs):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)
        with Materialize(buf, self.dtype) as m:
            offs = attn_metadata.kv_cache_block_offsets.to(torch.int32)  # negative: block offsets
        return m.out, offs
