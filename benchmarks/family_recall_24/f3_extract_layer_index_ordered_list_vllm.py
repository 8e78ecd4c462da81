# vLLM v1 connector worker: register_kv_caches orders the layers by the index parsed
# from each layer name; the per-step send path walks that list.
import torch
from vllm.model_executor.models.utils import extract_layer_index


class OrderedSendWorker:
    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
        self._ordered: list = [None] * len(kv_caches)
        for name, cache in kv_caches.items():
            self._ordered[extract_layer_index(name)] = cache
        self._dtype = next(iter(kv_caches.values())).dtype

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        idx = extract_layer_index(layer_name)
        cache = self._ordered[idx]
        if self.peer_dtype != self._dtype:
            wire = cache.to(self.peer_dtype)  # positive: f3 CL001 whole layer from the ordered list
        else:
            wire = cache
        ids = attn_metadata.slot_mapping
        check = self._ordered[idx].flatten(1, 2)[:, ids].float()  # negative: slots selected before the cast
        self._send(idx, wire, check)
