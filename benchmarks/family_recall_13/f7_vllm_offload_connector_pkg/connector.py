import torch

from .transfer import HostStager


class OffloadConnectorWorker:
    def __init__(self, vllm_config):
        self.stager = HostStager()
        self.kv_caches: dict[str, torch.Tensor] = {}
        self.full_snapshot = vllm_config.kv_transfer_config.get_from_extra_config("full_snapshot", False)

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def start_load_kv(self, forward_context, **kwargs):
        meta = self._connector_metadata
        if self.full_snapshot:
            self.snap = {n: self.stager.stage_layer(c) for n, c in self.kv_caches.items()}
        for req in meta.reqs_to_load:
            ids = torch.as_tensor(req.block_ids, dtype=torch.long)  # negative: one request's block ids
            for name, cache in self.kv_caches.items():
                self.stager.stage_blocks(cache, ids)
