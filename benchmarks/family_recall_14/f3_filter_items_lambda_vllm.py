"""A host-offload connector that picks registered caches with filter(lambda ...) over items()."""
import torch


class SelectiveHostOffloadConnector:
    def __init__(self, vllm_config, role):
        self.host_dtype = torch.float16
        self._host = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.offload_layers = {n for n in kv_caches if self._is_full_attention(n)}
        self._host = {n: torch.empty_like(c, dtype=self.host_dtype, device="cpu") for n, c in kv_caches.items()}  # negative: allocation

    def wait_for_save(self):
        chosen = filter(lambda item: item[0] in self.offload_layers, self.kv_caches.items())
        for name, cache in chosen:
            self._host[name] = cache.to("cpu", self.host_dtype, non_blocking=True)  # positive: f3 CL001 whole registered cache, device and dtype change
        for name in self.offload_layers:
            scale = self._scales[name].float()  # negative: a scale tensor
            self._host_scales[name] = scale

    def start_load_kv(self, forward_context, **kwargs):
        for name, cache in self.kv_caches.items():
            blocks = self._load_blocks.get(name)
            if blocks is not None:
                cache[:, blocks].copy_(self._host[name][:, blocks].to(cache.dtype))  # negative: host rows cast to the pool dtype
