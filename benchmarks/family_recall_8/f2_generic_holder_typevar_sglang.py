from typing import Generic, TypeVar

import torch

P = TypeVar("P")


class PoolHolder(Generic[P]):
    def __init__(self, pool: P):
        self.pool = pool

    def layer(self, layer_id):
        return self.pool.get_key_buffer(layer_id)


class MLAHolderBackend(PoolHolder["MLATokenToKVPool"]):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.layer(layer.layer_id)
        return lat.to(q.dtype)  # positive: f2 CL001 inherited generic layer() returns the pool layer

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        whole = self.pool.get_key_buffer(layer.layer_id)
        up = whole.bfloat16()  # positive: f2 CL001 pool attribute set by the generic base __init__
        kk = k.bfloat16()  # negative: the step's keys
        return up, kk


class SeqLenHolder(PoolHolder["ReqToTokenPool"]):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return forward_batch.seq_lens.to(torch.int32)  # negative: lengths, not the pool
