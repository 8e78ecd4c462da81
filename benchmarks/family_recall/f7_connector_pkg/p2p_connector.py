"""Concrete connector importing the base from connector_base."""
import torch

from .connector_base import LayoutAwareConnector


class P2PSendConnector(LayoutAwareConnector):
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        flat = self._flatten(kv_layer).to(torch.bfloat16)  # positive: f7 CL001 inherited flatten keeps the whole layer
        rows = self._select_slots(kv_layer, attn_metadata.slot_mapping).to(torch.bfloat16)  # negative: inherited helper selects slots
        wire = self._wire_format(kv_layer)
        self._send(layer_name, flat, rows, wire)

    def _send(self, *args):
        pass
