class ModelWorkerBatch:
    def __init__(self, reqs, kv_pool, out_cache_loc):
        self.reqs = reqs
        self.kv_pool = kv_pool
        self.out_cache_loc = out_cache_loc


class StepBatch:
    @classmethod
    def from_worker_batch(cls, wb):
        obj = cls()
        obj.pool = wb.kv_pool
        obj.loc = wb.out_cache_loc
        obj.n = len(wb.reqs)
        return obj


class Scheduler:
    def __init__(self, token_to_kv_pool):
        self.token_to_kv_pool = token_to_kv_pool

    def make(self, reqs, loc):
        return StepBatch.from_worker_batch(ModelWorkerBatch(reqs, self.token_to_kv_pool, loc))


class PlainTritonBackend:
    def __init__(self, dtype):
        self.dtype = dtype

    def forward_extend(self, q, k, v, layer, batch, save_kv_cache=True):
        kbuf = batch.pool.get_key_buffer(layer.layer_id)
        kbuf_c = kbuf.to(self.dtype)  # positive: f1 CL001 pool copied from the worker batch into the step batch
        new_k = k.to(self.dtype)  # negative: the step's new keys
        written = kbuf[batch.loc].to(self.dtype)  # negative: gather-then-cast
        return kbuf_c, new_k, written
