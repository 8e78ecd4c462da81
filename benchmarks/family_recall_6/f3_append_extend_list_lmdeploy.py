"""A per-step list of cache tensors built with append/extend/insert, converted in a loop."""
import torch


class CacheSnapshotter:
    def __init__(self, cache_engine, num_layers):
        self.cache_engine = cache_engine
        self.num_layers = num_layers

    def forward(self, inputs, dtype=torch.float16):
        acc = []
        for i in range(self.num_layers):
            acc.extend(self.cache_engine.gpu_cache[i])
        acc.insert(0, self.cache_engine.gpu_cache[0][0])
        out = []
        for t in acc:
            out.append(t.to(dtype))  # positive: f3 CL001 each element is a whole key or value cache
        sel = []
        for i in range(self.num_layers):
            sel.append(self.cache_engine.gpu_cache[i][0][inputs.block_offsets])
        picked = [s.to(dtype) for s in sel]  # negative: blocks gathered before the cast
        hd = acc[-1].float()  # positive: f3 CL001 last element is the last layer's value cache
        u8 = [t.view(torch.uint8) for t in acc]  # negative: reinterprets
        seq = inputs.seq_length.to(torch.int32)  # negative: lengths
        return out, picked, hd
