import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class HostStagingConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role):
        from .staging import stage_layer as _stage, stage_slots as _stage_slots

        self._stage = _stage
        self._stage_slots = _stage_slots
        self.dtype = torch.float16
        self.whole_prefix = vllm_config.kv_transfer_config.get_from_extra_config("whole_prefix", True)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self.whole_prefix:
            return self._stage(kv_layer, self.dtype)
        return self._stage_slots(kv_layer, attn_metadata.slot_mapping, self.dtype)

    def start_load_kv(self, forward_context, **kwargs):
        return None
