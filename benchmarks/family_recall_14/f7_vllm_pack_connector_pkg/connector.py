"""The caches come in here (register_kv_caches); packing.py converts them per step."""
import torch

from .packing import key_planes, pack_all, pack_blocks


class PackingConnector:
    def __init__(self, vllm_config, role):
        self.wire_dtype = torch.float16
        self.full_snapshot = vllm_config.kv_transfer_config.get_from_extra_config("full_snapshot", False)

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._queue.append(pack_blocks(kv_layer, self._save_blocks, self.wire_dtype))

    def wait_for_save(self):
        if self.full_snapshot:
            self._send_all(pack_all(self.kv_caches, self.wire_dtype))
        else:
            self._send_keys(key_planes(self.kv_caches, self.wire_dtype))
