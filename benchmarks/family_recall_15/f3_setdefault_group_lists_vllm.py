import torch


class GroupedSaveConnector:
    """Groups registered caches by kv-cache group id; wait_for_save ships each group widened."""

    def __init__(self, vllm_config):
        self.groups = {}
        self.wire_dtype = torch.bfloat16

    def register_kv_caches(self, kv_caches):
        self.layer_group = {name: i % 2 for i, name in enumerate(kv_caches)}
        for name, cache in kv_caches.items():
            self.groups.setdefault(self.layer_group[name], []).append(cache)

    def wait_for_save(self):
        payload = {}
        for gid, caches in self.groups.items():
            payload[gid] = [c.to(self.wire_dtype) for c in caches]  # positive: f3 CL001 whole registered caches, grouped by setdefault
        return payload

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        slots = attn_metadata.slot_mapping
        rows = kv_layer.flatten(1, 2)[:, slots].to(self.wire_dtype)  # negative: slot gather
        self.groups.setdefault(-1, [])
        return rows
