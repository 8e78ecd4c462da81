import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class P2PTransferConnector(KVConnectorBase_V1):
    """Prefill side: pushes each layer to the decode instance as soon as it is written."""

    def __init__(self, vllm_config, role, engine):
        super().__init__(vllm_config, role)
        self.engine = engine
        self.local_dtype = vllm_config.cache_config.cache_dtype
        self.remote_dtype = None

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        for name, t in kv_caches.items():
            self.engine.register_memory(t.view(torch.uint8))  # negative: byte view for registration

    def handshake(self, remote_meta):
        self.remote_dtype = remote_meta.kv_dtype

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self.remote_dtype is not None and self.remote_dtype != kv_layer.dtype:
            payload = kv_layer.to(self.remote_dtype)  # positive: f6 CL001 whole layer converted to the peer's dtype per saved layer
        else:
            payload = kv_layer
        blocks = attn_metadata.block_table[0]
        first = kv_layer[:, blocks].to(torch.float16)  # negative: the request's blocks gathered first
        self.engine.send(layer_name, payload, first)
