import torch

from .layouts import WireLayout


class EnumLayoutConnector:
    def __init__(self, vllm_config, role):
        extra = vllm_config.kv_transfer_config.kv_connector_extra_config
        self.layout = WireLayout(extra.get("layout", "blocks"))
        self.wire_dtype = torch.bfloat16

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        meta = self._get_connector_metadata()
        if self.layout is WireLayout.FLAT:
            self._send(layer_name, self.layout.encode(kv_layer, self.wire_dtype))
            return
        for req in meta.requests:
            self._send(f"{layer_name}:{req.request_id}", self.layout.encode_blocks(kv_layer, req.block_ids, self.wire_dtype))
