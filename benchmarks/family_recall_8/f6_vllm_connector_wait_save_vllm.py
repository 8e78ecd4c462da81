import torch


class OffloadConnector:
    def __init__(self, vllm_config, role):
        self.kv_caches = {}
        self.pending = []

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.staging = {n: t.to(torch.float16) for n, t in kv_caches.items()}  # negative: one-time registration

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.pending.append(layer_name)
        rows = kv_layer[:, attn_metadata.slot_mapping].to(torch.float16)  # negative: the step's slots
        return rows

    def wait_for_save(self):
        for name in self.pending:
            self.staging[name].copy_(self.kv_caches[name])  # positive: f6 CL001 copy_ of the FP8 cache into the fp16 staging buffer
        self.pending.clear()

    def start_load_kv(self, forward_context, **kwargs):
        for name, layer in forward_context.no_compile_layers.items():
            kv = layer.kv_cache[forward_context.virtual_engine]
            _ = kv.float()  # positive: f6 CL001 layer.kv_cache[virtual_engine] converted at load
