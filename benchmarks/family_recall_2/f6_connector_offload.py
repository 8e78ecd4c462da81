# Offloading-style connector that registers the runner's kv_caches and reads them on save.
from typing import Any, Dict

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class HostMirrorConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role, kv_cache_config=None):
        super().__init__(vllm_config, role, kv_cache_config)
        self.gpu_caches: Dict[str, torch.Tensor] = {}
        self.mirror_dtype = torch.bfloat16

    def register_kv_caches(self, kv_caches: Dict[str, torch.Tensor]):
        self.gpu_caches = kv_caches
        self.mirrors = {name: t.to(self.mirror_dtype) for name, t in kv_caches.items()}  # positive: f6 CL001 every registered layer cache converted whole
        self.host = {name: t.to("cpu") for name, t in kv_caches.items()}  # negative: device move

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata, **kwargs: Any) -> None:
        self._save_common(layer_name, kv_layer, attn_metadata.slot_mapping)

    def _save_common(self, layer_name: str, cache: torch.Tensor, slot_mapping: torch.Tensor):
        full = cache.to(self.mirror_dtype)  # positive: f6 CL001 the whole kv_layer passed on from save_kv_layer
        picked = cache.flatten(0, 1)[slot_mapping].to(self.mirror_dtype)  # negative: written slots only
        return full, picked

    def wait_for_layer_load(self, layer_name: str) -> None:
        cache = self.gpu_caches[layer_name]
        check = cache.float().isfinite().all()  # positive: f6 CL001 registered layer cache upcast whole for a check
        return None
