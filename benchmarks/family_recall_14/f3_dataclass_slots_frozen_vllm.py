"""A connector holding frozen slotted records of its registered caches, looked up by layer name."""
from dataclasses import dataclass
from typing import Optional

import torch


@dataclass(slots=True, frozen=True)
class RegisteredCache:
    name: str
    cache: torch.Tensor
    scale: Optional[torch.Tensor] = None


class BF16MirrorConnector:
    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
        self._records = tuple(RegisteredCache(n, c) for n, c in kv_caches.items())
        self._by_name = {r.name: r for r in self._records}
        self._probe = self._records[0].cache.to(torch.bfloat16)  # negative: registration time

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        rec = self._by_name[layer_name]
        mirror = rec.cache.to(torch.bfloat16)  # positive: f3 CL001 the record's whole registered cache, every layer save
        if rec.scale is not None:
            self._send_scale(layer_name, rec.scale.float())  # negative: a scale
        self._send(layer_name, mirror)

    def wait_for_save(self):
        for rec in self._records:
            rows = rec.cache[:, self._pending_blocks].to(torch.bfloat16)  # negative: the blocks being saved
            self._send(rec.name, rows)
