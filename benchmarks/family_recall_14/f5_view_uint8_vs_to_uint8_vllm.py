"""A P2P disaggregation connector: view(uint8) reinterprets, to(wire_dtype) converts."""
import torch


class P2pLayerSendConnector:
    def __init__(self, vllm_config, role):
        self.wire_dtype = torch.uint8
        self._send_block_ids = None
        self.debug_checksum = vllm_config.kv_transfer_config.get_from_extra_config("checksum", False)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        block_ids = self._send_block_ids
        if kv_layer.element_size() == 1:
            wire = kv_layer.view(torch.uint8)  # negative: zero-copy reinterpret of the FP8 bytes
        else:
            wire = kv_layer.to(self.wire_dtype)  # positive: f5 CL001 a value cast of the whole layer, not a reinterpret
        self._post(layer_name, wire[:, block_ids])
        if self.debug_checksum:
            self._log(layer_name, kv_layer.flatten(0, 1).to(torch.float16).sum())  # positive: f5 CL001 flatten keeps every slot
        self._last_rows = kv_layer.view(torch.uint8)[:, block_ids].to(torch.float16)  # negative: gathered blocks

    def wait_for_save(self):
        self._flush()
