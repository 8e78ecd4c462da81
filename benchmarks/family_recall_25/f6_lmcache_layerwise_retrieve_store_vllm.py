import torch


class LMCacheLayerwiseConnectorV1:
    def __init__(self, vllm_config, role):
        self.store_dtype = torch.float16
        self.kv_caches: dict[str, torch.Tensor] = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.mirror = {n: t.to(self.store_dtype) for n, t in kv_caches.items()}  # negative: register_kv_caches, setup

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if attn_metadata.num_prefill_tokens == attn_metadata.num_actual_tokens:
            self.mirror[layer_name].copy_(kv_layer.to(self.store_dtype))  # positive: f6 CL001 whole layer refreshed into the store mirror per step
        else:
            slots = attn_metadata.slot_mapping
            self.mirror[layer_name].flatten(1, 2)[:, slots] = kv_layer.flatten(1, 2)[:, slots].to(self.store_dtype)  # negative: slots first

    def wait_for_layer_load(self, layer_name):
        return self.kv_caches[layer_name].to("cuda", non_blocking=True)  # negative: .to(device)
