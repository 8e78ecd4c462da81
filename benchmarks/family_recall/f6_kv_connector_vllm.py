# SPDX-License-Identifier: Apache-2.0
"""A vLLM v1 KV connector that offloads layers to host memory, saving per layer."""
from dataclasses import dataclass, field

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1, KVConnectorMetadata, KVConnectorRole


@dataclass
class HostOffloadMetadata(KVConnectorMetadata):
    block_ids: list = field(default_factory=list)
    slot_mapping: torch.Tensor = None


class HostOffloadConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role: KVConnectorRole):
        super().__init__(vllm_config=vllm_config, role=role)
        self.host_store: dict[str, torch.Tensor] = {}
        self.kv_caches: dict[str, torch.Tensor] = {}

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
        self.kv_caches = kv_caches
        self.shapes = {name: tuple(t.shape) for name, t in kv_caches.items()}  # negative: dict of shapes

    def save_kv_layer(self, layer_name: str, kv_layer: torch.Tensor, attn_metadata, **kwargs) -> None:
        meta: HostOffloadMetadata = self._get_connector_metadata()
        self.host_store[layer_name] = kv_layer.to(torch.bfloat16).cpu()  # positive: f6 CL001 connector upcasts the whole layer
        ids = torch.tensor(meta.block_ids, device=kv_layer.device)
        self.host_store[layer_name + ".blocks"] = kv_layer[:, ids].to(torch.bfloat16).cpu()  # negative: gather of the request blocks first

    def start_load_kv(self, forward_context, **kwargs) -> None:
        for name, cache in self.kv_caches.items():
            if name in self.host_store:
                cache.copy_(self.host_store[name])  # positive: f6 CL001 copy_ of a bf16 host layer into the fp8 cache converts every slot

    def wait_for_layer_load(self, layer_name: str) -> None:
        return None

    def wait_for_save(self):
        return None

    def get_num_new_matched_tokens(self, request, num_computed_tokens):
        return 0, False

    def update_state_after_alloc(self, request, blocks, num_external_tokens):
        return None

    def build_connector_meta(self, scheduler_output):
        return HostOffloadMetadata()
