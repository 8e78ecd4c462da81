# vLLM v1 KV connector to an external store (Mooncake-style): the store keeps a fixed
# wire dtype; save_kv_layer converts when the engine cache dtype differs.
import torch


class StoreConnector:
    def __init__(self, vllm_config, role):
        self.store_dtype = torch.bfloat16
        self.byte_mode = vllm_config.kv_transfer_config.get_from_extra_config("byte_mode", False)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        meta = self._get_connector_metadata()
        if not meta.requests:
            return
        if self.byte_mode:
            payload = kv_layer.view(torch.uint8)  # negative: byte reinterpret
        elif kv_layer.dtype != self.store_dtype:
            payload = kv_layer.to(self.store_dtype)  # positive: f6 CL001 whole layer per save
        else:
            payload = kv_layer
        for req in meta.requests:
            self._put(req.key(layer_name), payload[:, req.block_ids])

    def start_load_kv(self, forward_context, **kwargs):
        for layer_name, layer in forward_context.no_compile_layers.items():
            for req in self._get_connector_metadata().requests:
                blob = self._get(req.key(layer_name))
                layer.kv_cache[0][:, req.block_ids].copy_(blob.to(layer.kv_cache[0].dtype))  # negative: loaded blob
