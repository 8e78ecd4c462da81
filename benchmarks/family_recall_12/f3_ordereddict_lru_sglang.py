import collections

import torch


class LruLayerBackend:
    def __init__(self, model_runner, keep=4):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.keep = keep
        self.recent = collections.OrderedDict()

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lid = layer.layer_id
        self.recent[lid] = self.pool.get_value_buffer(lid)
        self.recent.move_to_end(lid)
        if len(self.recent) > self.keep:
            _, oldest = self.recent.popitem(last=False)
            dropped = oldest.to(self.dtype)  # positive: f3 CL001 evicted whole value buffer from an OrderedDict LRU
        newest = next(reversed(self.recent.values()))
        cur = newest.to(self.dtype)  # positive: f3 CL001 most recent whole value buffer
        loc = forward_batch.out_cache_loc.to(torch.int64)  # negative: slot indices
        return cur, loc
