import torch


class VerifyingLoadConnector:
    """KVConnectorBase_V1 worker side: loads bf16 blobs into the fp8 paged cache and verifies."""

    def __init__(self, verify: bool):
        self.verify = verify
        self.loaded = {}

    def start_load_kv(self, forward_context, **kwargs):
        for name, (blob, slots) in self.loaded.items():
            kv_cache = forward_context.no_compile_layers[name].kv_cache[0]
            kv_cache.view(-1, blob.shape[-1])[slots] = blob.to(kv_cache.dtype)  # negative: loaded blob, not the cache

    def wait_for_layer_load(self, layer_name: str, kv_layer: torch.Tensor = None):
        if self.verify and kv_layer is not None:
            return torch.isfinite(kv_layer.to(torch.bfloat16)).all()  # positive: f6 CL001 whole layer widened every load

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        return kv_layer[:, attn_metadata.slot_mapping].to(torch.bfloat16)  # negative: slots first
