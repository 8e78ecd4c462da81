"""vLLM CPU-offload connector: only the layers named in the offload config are saved; the
set intersection of the dict keys picks them in wait_for_save."""
import torch


class OffloadConnectorWorker:
    def __init__(self, vllm_config):
        self.offload_layers = set(vllm_config.kv_transfer_config.get_from_extra_config("layers", []))
        self.host_dtype = torch.bfloat16
        self.kv_caches = {}
        self.dirty_blocks = {}

    def register_kv_caches(self, kv_caches):
        self.kv_caches = dict(kv_caches)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.dirty_blocks[layer_name] = attn_metadata.block_table[:, -1]

    def wait_for_save(self):
        for name in sorted(self.kv_caches.keys() & self.offload_layers):
            host = self.kv_caches[name].to("cpu", self.host_dtype)  # positive: f3 CL001 a whole registered cache to host
            self._store(name, host)
        for name, blocks in self.dirty_blocks.items():
            self._store(name, self.kv_caches[name][:, blocks].to("cpu", self.host_dtype))  # negative: dirty blocks

    def _store(self, name, tensor):
        return None
