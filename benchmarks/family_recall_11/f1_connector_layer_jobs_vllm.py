import torch


class _LayerJob:
    def __init__(self, cache, block_ids, event):
        self.cache = cache
        self.block_ids = block_ids
        self.event = event


class StagedLoadConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self._jobs = {}
        self._probe = next(iter(kv_caches.values())).float()  # negative: one-time setup at registration

    def start_load_kv(self, forward_context, **kwargs):
        meta = self._get_connector_metadata()
        for name, cache in self.kv_caches.items():
            ids = torch.as_tensor(meta.block_ids[name], dtype=torch.int64)  # negative: block ids
            self._jobs[name] = _LayerJob(cache, ids, torch.cuda.Event())

    def wait_for_layer_load(self, layer_name):
        job = self._jobs.pop(layer_name)
        job.event.synchronize()
        staged = job.cache.to(torch.float16)  # positive: f1 CL001 whole registered cache carried by the job object
        picked = job.cache[:, job.block_ids].to(torch.float16)  # negative: gathered blocks of the job
        return staged, picked
