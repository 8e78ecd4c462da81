from .codec import LayerCodec


class CodecConnector:
    def __init__(self, vllm_config, role):
        self.codec = LayerCodec()
        self.outbox = []

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.outbox.append((layer_name, self.codec.encode(kv_layer)))
        self.outbox.append((layer_name, self.codec.encode_rows(kv_layer, attn_metadata.slot_mapping)))

    def wait_for_save(self):
        self.outbox.clear()
