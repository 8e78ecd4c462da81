"""vLLM runner with a debug checksum of layer 0: profile_run warms the checksum path once;
execute_model computes it every step."""
import torch


class ChecksumRunner:
    def __init__(self, vllm_config, device):
        self.kv_caches = []
        self.check_layer = 0

    def initialize_kv_cache(self, kv_cache_config):
        self.kv_caches = self._allocate(kv_cache_config)
        self.kv_caches[self.check_layer].float().sum()  # negative: once, at allocation

    def profile_run(self):
        self._checksum()

    def _checksum(self):
        return self.kv_caches[self.check_layer].float().sum()  # positive: f6 CL001 whole cache widened; execute_model calls it every step

    def execute_model(self, scheduler_output, intermediate_tensors=None):
        out = self._model_forward(scheduler_output)
        digest = self._checksum()
        recent = self.kv_caches[self.check_layer][:, scheduler_output.new_block_ids].float()  # negative: new blocks only
        return out, digest, recent
