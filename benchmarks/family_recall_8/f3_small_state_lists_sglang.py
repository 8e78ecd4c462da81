import torch


class StateListsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.req_lens = [torch.zeros(256, dtype=torch.int32) for _ in range(4)]
        self.scales = {i: torch.ones(1) for i in range(4)}

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lens = [t.to(torch.int64) for t in self.req_lens]  # negative: per-request lengths
        sc = {i: s.half() for i, s in self.scales.items()}  # negative: scales
        locs = dict(enumerate([forward_batch.out_cache_loc]))[0].long()  # negative: slot indices
        rows = [kb[forward_batch.out_cache_loc].to(q.dtype) for kb in self.pool.k_buffer]  # negative: gathered rows of every layer
        pos = tuple(p.to(torch.int32) for p in (forward_batch.positions,))  # negative: positions
        first = next(kb for kb in self.pool.k_buffer).to(q.dtype)  # positive: f3 CL001 next() over the per-layer list
        return lens, sc, locs, rows, pos, first
