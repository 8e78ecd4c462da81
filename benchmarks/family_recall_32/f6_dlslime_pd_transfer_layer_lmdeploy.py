"""lmdeploy PD disaggregation over DLSlime: the prefill side converts each whole layer to the decode side's dtype."""
import torch


class DLSlimeMigrationSender:
    def __init__(self, cache_engine, endpoint, remote_dtype=torch.bfloat16):
        self.cache_engine = cache_engine
        self.endpoint = endpoint
        self.remote_dtype = remote_dtype

    def send_layer(self, layer_idx):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        if k_cache.dtype != self.remote_dtype:
            k_cache = k_cache.to(self.remote_dtype)  # positive: f6 CL001 whole key cache converted for the peer every transfer
            v_cache = v_cache.to(self.remote_dtype)  # positive: f6 CL001 whole value cache converted for the peer every transfer
        self.endpoint.write(layer_idx, k_cache, v_cache)

    def send_blocks(self, layer_idx, block_ids):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        k = k_cache[block_ids].to(self.remote_dtype)  # negative: request blocks gathered first
        self.endpoint.write(layer_idx, k, v_cache[block_ids].to("cpu"))  # negative: device move of gathered blocks
