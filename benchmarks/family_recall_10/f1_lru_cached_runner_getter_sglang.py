"""The model runner obtained through an lru_cache'd module getter, then its pool."""
import functools

import torch

_RUNNERS = {}


@functools.lru_cache(maxsize=1)
def current_runner():
    return _RUNNERS["main"]


class CachedGetterBackend:
    def __init__(self, dtype):
        self.dtype = dtype
        self.seq_lens = torch.zeros(32, dtype=torch.int32)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        runner = current_runner()
        pool = runner.token_to_kv_pool
        t = pool.get_key_buffer(layer.layer_id)
        out = t.to(self.dtype)  # positive: f1 CL001 pool through an lru_cache'd runner getter
        lens = self.seq_lens.to(torch.int64)  # negative: lengths
        cur = t[forward_batch.out_cache_loc].to(self.dtype)  # negative: gather-then-cast
        return out, lens, cur
