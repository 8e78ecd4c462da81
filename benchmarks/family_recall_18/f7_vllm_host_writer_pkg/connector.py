"""Connector module: receives each layer's cache in save_kv_layer and hands it to the writer."""
import torch

from .host_io import HostWriter


class HostWriterConnector:
    def __init__(self, mirror_full_layers=False):
        self.mirror_full_layers = mirror_full_layers
        self.writer = HostWriter(torch.float16)

    def register_kv_caches(self, kv_caches: dict):
        self.writer.allocate({n: c.shape for n, c in kv_caches.items()})

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self.mirror_full_layers:
            self.writer.write_layer(layer_name, kv_layer)
        else:
            self.writer.write_blocks(layer_name, kv_layer, attn_metadata.save_block_ids)

    def wait_for_save(self):
        self.writer.flush()
