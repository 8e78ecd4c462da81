"""Executor module: owns the KV cache manager and consumes the layer_tap generators each step."""
import torch

from .layer_tap import block_rows, widened_layers


class PyExecutor:
    def __init__(self, model_engine, kv_cache_manager, mirror_dtype=torch.bfloat16, mirror_all=False):
        self.model_engine = model_engine
        self.kv_cache_manager = kv_cache_manager
        self.mirror_dtype = mirror_dtype
        self.mirror_all = mirror_all
        self.mirror = {}

    def _forward_step(self, scheduled_requests, new_blocks):
        outputs = self.model_engine.forward(scheduled_requests, self.kv_cache_manager)
        if self.mirror_all:
            for layer_idx, buf in widened_layers(self.kv_cache_manager, self.mirror_dtype):
                self.mirror[layer_idx] = buf
        else:
            for layer_idx, rows in block_rows(self.kv_cache_manager, new_blocks, self.mirror_dtype):
                self.mirror[layer_idx] = rows
        return outputs
