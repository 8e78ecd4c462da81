import os

import torch


def _dump_enabled() -> bool:
    return os.environ.get("VLLM_DEBUG_DUMP_KV", "0") == "1"


class GPUModelRunnerDebug:
    def __init__(self, kv_caches, dump_dir="/tmp/kv_dump"):
        self.kv_caches = kv_caches
        self.dump_dir = dump_dir
        self.step = 0

    def _dump_layer(self, idx, cache):
        os.makedirs(self.dump_dir, exist_ok=True)
        path = os.path.join(self.dump_dir, f"step{self.step}_layer{idx}.pt")
        torch.save(cache.float().cpu(), path)  # positive: f4 CL001 whole cache widened for a debug dump every step

    def _dump_shape(self, idx, cache):
        return (idx, tuple(cache.shape), str(cache.cpu().dtype))  # negative: cpu copy keeps the dtype

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        self.step += 1
        if _dump_enabled():
            for idx, cache in enumerate(self.kv_caches):
                self._dump_layer(idx, cache)
                self._dump_shape(idx, cache)
        return scheduler_output
