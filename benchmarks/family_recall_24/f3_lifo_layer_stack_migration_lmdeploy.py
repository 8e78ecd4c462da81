# lmdeploy PD migration sender: layers are pushed on a stack as they finish and popped
# LIFO by the sender loop that runs each engine step.
import torch


class LayerStackSender:
    def __init__(self, cache_engine, peer_dtype=torch.bfloat16):
        self.cache_engine = cache_engine
        self.peer_dtype = peer_dtype
        self.stack = []

    def on_layer_done(self, layer_idx):
        self.stack.append((layer_idx, self.cache_engine.gpu_cache[layer_idx]))

    def step(self, migration_blocks):
        while self.stack:
            layer_idx, (k_cache, v_cache, *_) = self.stack.pop()
            if migration_blocks is None:
                payload = (k_cache.to(self.peer_dtype), v_cache.to(self.peer_dtype))  # positive: f3 CL001 both whole caches popped from the stack
            else:
                payload = (k_cache[migration_blocks].to(self.peer_dtype), v_cache[migration_blocks].to(self.peer_dtype))  # negative: blocks first
            self._send(layer_idx, payload)
