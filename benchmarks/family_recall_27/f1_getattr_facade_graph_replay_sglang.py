import torch


class _PoolFacade:
    """Lets the graph runner treat (pool, compute dtype) as one object; unknown names go to the pool."""

    def __init__(self, pool, compute_dtype):
        self._pool = pool
        self.compute_dtype = compute_dtype

    def __getattr__(self, name):
        return getattr(self._pool, name)


class MLACudaGraphRunner:
    def __init__(self, model_runner, layer_ids):
        self.kv = _PoolFacade(model_runner.token_to_kv_pool, model_runner.dtype)
        self.layer_ids = list(layer_ids)
        self.static_q = torch.empty(model_runner.max_bs, 16, 576, dtype=model_runner.dtype)
        self.dense = {}

    def replay(self, forward_batch):
        bs = forward_batch.batch_size
        self.static_q[:bs].copy_(forward_batch.q_input.to(self.kv.compute_dtype))  # negative: the query
        for lid in self.layer_ids:
            buf = self.kv.get_key_buffer(lid)
            if forward_batch.forward_mode.is_decode():
                self.dense[lid] = buf.to(self.kv.compute_dtype)  # positive: f1 CL001 whole MLA layer read through the __getattr__ facade, every replay
            else:
                self.dense[lid] = buf[forward_batch.out_cache_loc].to(self.kv.compute_dtype)  # negative: new-token rows gathered first
        self.graphs[bs].replay()
        return self.output_buffers[bs]
