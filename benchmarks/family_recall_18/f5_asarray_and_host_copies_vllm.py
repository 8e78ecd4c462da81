"""vLLM-style snapshot connector over FP8 caches: torch.asarray with a dtype, host copies with and without a cast."""
import torch


class KVSnapshotConnector:
    def __init__(self):
        self.snap = {}
        self.alias = {}
        self.host = {}

    def register_kv_caches(self, kv_caches: dict):
        self.kv_caches = kv_caches

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.snap[layer_name] = torch.asarray(kv_layer, dtype=torch.float16)  # positive: f5 CL001 asarray with a dtype converts the whole layer
        self.alias[layer_name] = torch.asarray(kv_layer)  # negative: aliases the cache, no copy
        self.host[layer_name] = kv_layer.cpu().float()  # positive: f5 CL001 whole layer widened after the host copy
        self.host[(layer_name, "raw")] = kv_layer.cpu()  # negative: host copy, same dtype
        self.host[(layer_name, "nb")] = kv_layer.to("cpu", non_blocking=True)  # negative: device move only

    def wait_for_save(self):
        self.alias.clear()
