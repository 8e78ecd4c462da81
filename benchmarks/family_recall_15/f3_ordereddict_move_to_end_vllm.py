from collections import OrderedDict

import torch


class HotLayerConnector:
    """Offload connector that keeps an LRU of the layers it touched."""

    def __init__(self, vllm_config, capacity=8):
        self.hot = OrderedDict()
        self.capacity = capacity
        self.stage_dtype = torch.float16

    def register_kv_caches(self, kv_caches):
        for name, cache in kv_caches.items():
            self.hot[name] = cache
        self._probe = {n: c.to(self.stage_dtype) for n, c in list(self.hot.items())[:1]}  # negative: registration

    def start_load_kv(self, forward_context, **kwargs):
        for name in kwargs.get("layers", []):
            self.hot.move_to_end(name)
        coldest = next(iter(self.hot))
        staged = self.hot[coldest].to(self.stage_dtype)  # positive: f3 CL001 least-recent registered cache, whole
        newest = self.hot[next(reversed(self.hot))]
        newest_w = newest.half()  # positive: f3 CL001 most-recent registered cache, whole
        blocks = kwargs.get("block_ids", [])
        part = newest[:, blocks].to(self.stage_dtype)  # negative: block gather
        return staged, part

    def wait_for_save(self):
        return [c.numel() for c in self.hot.values()]  # negative: sizes only
