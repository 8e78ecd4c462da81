"""f1: the runner publishes the pool as a class attribute of a Runtime holder; backends read it there."""
import torch


class TokenToKVPoolLite:
    def __init__(self, size, layer_num, head_num, head_dim, dtype, device):
        self.k_buffer = [torch.empty((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.empty((size + 1, head_num, head_dim), dtype=dtype, device=device) for _ in range(layer_num)]


class Runtime:
    pool = None
    seq_lens = None


def install(pool, seq_lens):
    Runtime.pool = pool
    Runtime.seq_lens = seq_lens


class RuntimeBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch):
        keys = Runtime.pool.k_buffer[layer.layer_id].to(self.dtype)  # positive: f1 CL001 pool via a class attribute
        lens = Runtime.seq_lens.to(torch.int64)  # negative: sequence lengths
        return keys, lens

    def forward_extend(self, q, k, v, layer, forward_batch):
        holder = Runtime
        vals = holder.pool.v_buffer[layer.layer_id].type(q.dtype)  # positive: f1 CL001 the same class attribute, aliased
        new_rows = holder.pool.v_buffer[layer.layer_id][forward_batch.out_cache_loc].float()  # negative: the step's rows
        return vals, new_rows
