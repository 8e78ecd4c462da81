import itertools

import torch


class AccumBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        groups = [[kb] for kb in self.pool.k_buffer]
        acc = list(itertools.accumulate(groups))
        last = acc[-1]
        up = [t.to(q.dtype) for t in last]  # positive: f3 CL001 accumulated lists hold every whole layer
        pairs = dict(zip(range(len(self.pool.v_buffer)), self.pool.v_buffer))
        v_up = pairs.pop(layer.layer_id).float()  # positive: f3 CL001 dict.pop of a V layer
        lens = list(itertools.accumulate(forward_batch.extend_seq_lens_cpu))
        starts = torch.tensor(lens, dtype=torch.int64)  # negative: prefix sums
        return up, v_up, starts
