"""A uint8 FP8 arena widened with .long() and converted with .char() / .byte() spellings."""
import torch


class ArenaWidenBackend:
    def __init__(self, pool):
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        raw = self.pool.kv_buffer[layer.layer_id - self.pool.start_layer]
        wide = raw.long()  # positive: f5 CL001 int64 widening of the whole uint8 arena
        signed = raw.char()  # positive: f5 CL001 int8 conversion of the whole arena
        fp8 = raw.view(torch.float8_e4m3fn)  # negative: reinterpret, no conversion
        by = fp8.byte()  # positive: f5 CL001 fp8 -> uint8 value conversion of the whole layer
        loc = forward_batch.out_cache_loc.long()  # negative: slot indices
        return wide, signed, by, loc
