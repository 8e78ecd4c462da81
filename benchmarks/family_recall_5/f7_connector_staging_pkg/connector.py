"""The connector: per-layer save hooks delegate to staging.py."""

import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1

from .staging import pin, stage_layer, stage_slots


class StagingConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role, kv_cache_config=None):
        super().__init__(vllm_config, role, kv_cache_config)
        self.full_snapshot = vllm_config.kv_transfer_config.get_from_extra_config("full_snapshot", False)
        self.out = {}

    def start_load_kv(self, forward_context, **kwargs):
        return None

    def wait_for_layer_load(self, layer_name):
        return None

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self.full_snapshot:
            self.out[layer_name] = stage_layer(kv_layer)
        else:
            self.out[layer_name] = pin(stage_slots(kv_layer, attn_metadata.slot_mapping))
        req_ids = attn_metadata.seq_lens.to(torch.int64)  # negative: lengths
        kwargs["lens"] = req_ids

    def wait_for_save(self):
        torch.cuda.synchronize()
