import torch

from .unpack import unpack_layer, unpack_blocks


class Fp4FallbackWorker:
    def __init__(self, kv_cache_manager, num_layers):
        self.kv_cache_manager = kv_cache_manager
        self.num_layers = num_layers

    def _forward_step(self, scheduled_requests, metadata, dtype=torch.bfloat16):
        out = []
        for idx in range(self.num_layers):
            buf = self.kv_cache_manager.get_buffers(idx)
            out.append(unpack_layer(buf, dtype))
        head = unpack_blocks(self.kv_cache_manager.get_buffers(0), metadata.kv_cache_block_offsets[0, 0], dtype)
        return out, head
