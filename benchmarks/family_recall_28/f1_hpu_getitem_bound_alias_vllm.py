"""vLLM Gaudi (HPU) model runner: kv_caches.__getitem__ kept as layer_cache and read every step."""
import torch


class HPUModelRunner:
    def __init__(self, vllm_config):
        self.kv_caches = []
        self.layer_cache = None
        self.model_dtype = vllm_config.model_config.dtype

    def initialize_kv_cache(self, kv_caches):
        self.kv_caches = kv_caches
        self.layer_cache = self.kv_caches.__getitem__

    def execute_model(self, scheduler_output, attn_metadata, layer_ids):
        outs = []
        for i in layer_ids:
            key_cache, value_cache = self.layer_cache(i)
            if attn_metadata.is_prompt:
                k = key_cache.index_select(0, attn_metadata.block_list).to(self.model_dtype)  # negative: block_list gather first
                v = value_cache.to("hpu", non_blocking=True)  # negative: device move only
            else:
                k = key_cache.to(self.model_dtype)  # positive: f1 CL001 whole key cache reached through the stored bound __getitem__
                v = value_cache.to(self.model_dtype)  # positive: f1 CL001 whole value cache, same path
            outs.append((k, v))
        return outs
