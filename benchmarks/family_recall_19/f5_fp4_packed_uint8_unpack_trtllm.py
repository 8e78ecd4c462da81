import torch


class Nvfp4KVUnpack:
    """NVFP4 cache: two e2m1 codes per byte, one fp8 scale per 16 values."""

    def __init__(self, lut: torch.Tensor):
        self.lut = lut.to(torch.bfloat16)  # negative: lookup table in __init__

    def forward(self, q, metadata, layer_idx):
        buf = metadata.kv_cache_manager.get_buffers(layer_idx)
        raw = buf.view(torch.uint8)  # negative: reinterpret view
        codes = raw.to(torch.int64)  # positive: f5 CL001 whole packed layer widened to int64 indices
        lo = self.lut[codes & 0xF]
        hi = self.lut[(raw >> 4).long()]  # positive: f5 CL001 high nibbles of the whole packed layer to int64
        rows = self.lut[raw[metadata.kv_cache_block_offsets[0, 0]].long() & 0xF]  # negative: block rows first
        return lo, hi, rows
