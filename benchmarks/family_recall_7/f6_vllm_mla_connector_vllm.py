"""f6: a vLLM v1 connector for an MLA model: latent layer caches saved and loaded per step."""
import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class LatentOffloadConnector(KVConnectorBase_V1):
    def __init__(self, vllm_config, role):
        super().__init__(vllm_config, role)
        self.kv_lora_rank = 512
        self._kv_caches = {}

    def register_kv_caches(self, kv_caches):
        self._kv_caches = kv_caches
        self._templates = {n: c.to(torch.bfloat16) for n, c in kv_caches.items()}  # negative: one-time registration

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        latent = kv_layer[..., : self.kv_lora_rank].to(torch.bfloat16)  # positive: f6 CL001 latent of every slot of kv_layer
        rows = kv_layer.view(-1, kv_layer.shape[-1])[attn_metadata.slot_mapping].to(torch.bfloat16)  # negative: slots written this step
        self._send(layer_name, latent, rows)

    def wait_for_layer_load(self, layer_name):
        cache = self._kv_caches[layer_name]
        self._check(cache.float())  # positive: f6 CL001 registered layer cache upcast while waiting

    def start_load_kv(self, forward_context, **kwargs):
        meta = self._get_connector_metadata()
        for req in meta.requests:
            for name, cache in self._kv_caches.items():
                blocks = cache[req.block_ids].float()  # negative: the request's blocks
                self._recv(name, blocks)

    def _send(self, *a):
        pass

    def _recv(self, *a):
        pass

    def _check(self, t):
        pass
