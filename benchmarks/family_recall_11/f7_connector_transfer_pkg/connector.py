import torch

from . import layout
from .wire import ids_to_wire, to_wire


class TransferConnector:
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        meta = self._get_connector_metadata()
        k = to_wire(layout.k_plane(kv_layer))
        v = to_wire(layout.v_plane(kv_layer))
        ids = ids_to_wire(meta.block_ids)
        sel = layout.blocks(kv_layer, ids).to(torch.float16)  # negative: blocks gathered first
        return k, v, sel
