"""f1: a chain of properties (backend.kv -> runner.pool -> pool.latent_planes) reaches the pool."""
import torch


class MLAPool:
    def __init__(self, size: int, layer_num: int, dtype: torch.dtype, device: str):
        self.dtype = dtype
        self.kv_buffer = [
            torch.zeros((size + 1, 1, 576), dtype=dtype, device=device) for _ in range(layer_num)
        ]
        self.req_to_token = torch.zeros((256, 4096), dtype=torch.int32, device=device)

    @property
    def latent_planes(self):
        return self.kv_buffer

    @property
    def token_table(self):
        return self.req_to_token


class Runner:
    def __init__(self, pool: MLAPool, dtype: torch.dtype):
        self._pool = pool
        self.dtype = dtype

    @property
    def pool(self) -> MLAPool:
        return self._pool


class ChainBackend:
    def __init__(self, runner: Runner):
        self.runner = runner

    @property
    def kv(self) -> MLAPool:
        return self.runner.pool

    def forward_decode(self, q, layer, forward_batch):
        lat = self.kv.latent_planes[layer.layer_id].to(q.dtype)  # positive: f1 CL001 three properties lead to a whole layer
        rows = self.kv.token_table[forward_batch.req_pool_indices].to(torch.int64)  # negative: token-table rows, not KV
        return lat, rows

    def forward_extend(self, q, layer, forward_batch):
        planes = self.runner.pool.latent_planes
        head = planes[layer.layer_id][..., :512].bfloat16()  # positive: f1 CL001 latent part of every token
        seen = planes[layer.layer_id][forward_batch.out_cache_loc].float()  # negative: the step's rows only
        return head, seen
