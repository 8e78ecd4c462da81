import contextlib

import torch


class PoolLease:
    def __init__(self, allocator):
        self.allocator = allocator

    @contextlib.contextmanager
    def hold(self):
        pool = self.allocator.get_kvcache()
        yield pool


class LeaseBackend:
    def __init__(self, model_runner):
        self.lease = PoolLease(model_runner.token_to_kv_pool_allocator)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        with self.lease.hold() as pool:
            k_cache = pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f1 CL001 pool from a context manager
            page_table = forward_batch.req_to_token_pool.req_to_token.to(torch.int32)  # negative: request->token table, not KV
        return k_cache, page_table

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool_allocator.get_kvcache()
        kb = pool.get_key_buffer(layer.layer_id)
        used = kb.index_select(0, forward_batch.out_cache_loc).to(q.dtype)  # negative: index_select before the cast
        return used
