"""A KV connector that queues whole layers in save_kv_layer and converts them in a flush helper."""
from typing import Any

import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorRole


class BufferedOffloadConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role: KVConnectorRole, kv_cache_config=None):
        super().__init__(vllm_config, role, kv_cache_config)
        self._pending: list[tuple[str, torch.Tensor]] = []
        self._host: dict[str, torch.Tensor] = {}
        self._flush_every = 4

    def _flush(self):
        while self._pending:
            name, blob = self._pending.pop()
            self._host[name] = blob.float().cpu()  # positive: f6 CL001 every queued entry is a whole layer's kv cache
        return len(self._host)

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata, **kwargs: Any) -> None:
        self._pending.append((layer_name, kv_layer))
        if len(self._pending) >= self._flush_every:
            self._flush()
        meta = torch.Tensor.half(kv_layer)  # positive: f6 CL001 unbound Tensor.half of the whole layer cache
        slots = attn_metadata.slot_mapping.to(torch.int64)  # negative: slot mapping
        picked = kv_layer.flatten(1, 2)[:, slots].half()  # negative: slots gathered first
        self._host[layer_name + ".meta"] = meta

    def wait_for_save(self):
        self._pending.clear()

    def start_load_kv(self, forward_context, **kwargs):
        pass

    def wait_for_layer_load(self, layer_name: str) -> None:
        pass

    def get_finished(self, finished_req_ids):
        return None, None

    def _stats(self):
        return {n: tuple(t.shape) for n, t in self._host.items()}

    def _request_slots(self, attn_metadata, req_idx):
        return attn_metadata.slot_mapping[attn_metadata.query_start_loc[req_idx]:].to(torch.int32)  # negative: slot mapping slice
