"""Decode CUDA graph runner (SM89, FP8 manager, BF16 generation kernel)."""
import torch

from .convert import widen_blocks_bf16, widen_bf16


class SM89DecodeGraphRunner:
    def __init__(self, manager, num_layers):
        self.manager, self.num_layers = manager, num_layers
        self.static = [torch.empty_like(manager.get_buffers(i), dtype=torch.bfloat16)  # negative: capture allocation
                       for i in range(num_layers)]

    def replay(self, batch):
        for i in range(self.num_layers):
            self.static[i].copy_(widen_bf16(self.manager.get_buffers(i)))
        self.last = widen_blocks_bf16(self.manager.get_buffers(0), batch.block_ids)
        self.graph.replay()
        return self.output
