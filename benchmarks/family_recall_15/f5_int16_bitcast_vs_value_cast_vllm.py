import torch


class Bf16WireConnector:
    """Ships bf16 caches as int16 words; a bug variant converts values instead of reinterpreting."""

    def __init__(self, vllm_config):
        self.caches = {}

    def register_kv_caches(self, kv_caches):
        self.caches = dict(kv_caches)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        words = kv_layer.view(torch.int16)  # negative: reinterpret, zero-copy
        back = words.view(torch.bfloat16)  # negative: reinterpret back
        wrong = words.to(torch.bfloat16)  # positive: f5 CL001 value conversion of every int16 word of the layer
        slots = attn_metadata.slot_mapping
        sent = kv_layer.flatten(1, 2)[:, slots].view(torch.int16)  # negative: gather + reinterpret
        return back, wrong, sent

    def wait_for_save(self):
        return {n: c.view(torch.int16).to(torch.float32) for n, c in self.caches.items()}  # positive: f5 CL001 every registered cache converted after a reinterpret
