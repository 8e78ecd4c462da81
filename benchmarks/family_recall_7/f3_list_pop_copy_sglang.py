"""f3: a local list(...) copy of the per-layer list consumed with pop() and copy()."""
import torch


class PopBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch):
        layers = list(self.pool.k_buffer)
        mine = layers.pop(layer.layer_id)
        dense = mine.to(self.dtype)  # positive: f3 CL001 popped element is a whole layer
        shadow = self.pool.v_buffer.copy()
        vals = shadow[layer.layer_id].bfloat16()  # positive: f3 CL001 list.copy() keeps whole layers
        locs = [forward_batch.out_cache_loc]
        new = mine[locs.pop()].to(self.dtype)  # negative: the step's rows
        return dense, vals, new

    def forward_decode(self, q, k, v, layer, forward_batch):
        lens = [forward_batch.seq_lens]
        return lens.pop().to(torch.int32)  # negative: sequence lengths
