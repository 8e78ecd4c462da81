"""sglang CUDA graph runner (FP8 pool, BF16 kernel): dataclass with default_factory list fields."""
from dataclasses import dataclass, field

import torch


@dataclass
class _GraphKV:
    src_k: list = field(default_factory=list)
    dst_k: list = field(default_factory=list)
    src_v: list = field(default_factory=list)
    dst_v: list = field(default_factory=list)


class BF16KernelGraphRunner:
    def capture(self, pool, dtype):
        self.kv = _GraphKV()
        for lid in range(pool.start_layer, pool.end_layer):
            self.kv.src_k.append(pool.get_key_buffer(lid))
            self.kv.dst_k.append(torch.empty_like(pool.get_key_buffer(lid), dtype=dtype))  # negative: allocation
            self.kv.src_v.append(pool.get_value_buffer(lid))
            self.kv.dst_v.append(torch.empty_like(pool.get_value_buffer(lid), dtype=dtype))  # negative: allocation

    def replay(self, forward_batch):
        for s, d in zip(self.kv.src_k + self.kv.src_v, self.kv.dst_k + self.kv.dst_v):
            d.copy_(s.to(d.dtype))  # positive: f3 CL001 every whole layer buffer copied converted into the static list
        self.positions.copy_(forward_batch.positions.to(torch.int64))  # negative: positions
        self.graphs[forward_batch.batch_size].replay()
