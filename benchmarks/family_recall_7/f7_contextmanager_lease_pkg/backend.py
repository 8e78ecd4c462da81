from .lease import layer_lease, rows_lease


class LeaseBackend:
    def __init__(self, pool, dtype):
        self.pool = pool
        self.dtype = dtype

    def forward_extend(self, q, k, v, layer, forward_batch):
        with layer_lease(self.pool, layer.layer_id) as (kb, vb):
            dense_k = kb.to(self.dtype)  # positive: f7 CL001 the lease (lease.py) yields the whole K layer
        with rows_lease(self.pool, layer.layer_id, forward_batch.out_cache_loc) as rows:
            new_k = rows.to(self.dtype)  # negative: yielded rows of this step
        return dense_k, new_k, vb
