from . import wire


class WireConnector:
    def __init__(self):
        self.layout = wire.HostLayout()

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        whole = self.layout.pack(kv_layer)
        part = wire.pack_blocks(kv_layer, attn_metadata.block_ids)
        return whole, part
