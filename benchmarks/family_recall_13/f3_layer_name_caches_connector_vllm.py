import torch


class BF16StagingConnector:
    """Worker side: receives remote blocks in bf16 and keeps local fp8 caches."""

    def __init__(self, vllm_config, role):
        self.kv_caches: dict[str, torch.Tensor] = {}
        self.block_size = vllm_config.cache_config.block_size

    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
        self.kv_caches = kv_caches
        self.staging = {n: torch.empty_like(c, dtype=torch.bfloat16) for n, c in kv_caches.items()}  # negative: one-time setup, empty_like allocates

    def start_load_kv(self, forward_context, **kwargs):
        meta = self._get_connector_metadata()
        for name in meta.layer_names:
            local = self.kv_caches[name]
            self.staging[name].copy_(local)  # positive: f3 CL001 whole fp8 cache copied into a bf16 staging tensor, dict by layer name
        for req in meta.requests:
            ids = torch.tensor(req.block_ids, dtype=torch.long)  # negative: block ids of one request
            self._recv(req, ids)

    def _get_connector_metadata(self):
        return self._meta

    def _recv(self, req, ids):
        pass
