"""Walrus targets inside comprehensions: a filtered dict, and a name leaked to the enclosing scope."""
import torch


class WalrusBackend:
    def __init__(self, model_runner):
        self.layer_ids = list(range(model_runner.model_config.num_hidden_layers))
        self.dtype = model_runner.dtype

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        live = {i: b for i in self.layer_ids if (b := pool.get_key_buffer(i)) is not None}
        self.first_dense = live[self.layer_ids[0]].to(self.dtype)  # positive: f3 CL001 key buffer stored through a walrus in a dict comprehension
        shapes = [(last := pool.get_value_buffer(i)).shape for i in self.layer_ids]
        self.last_dense = last.to(self.dtype)  # positive: f3 CL001 walrus name leaked from the comprehension: the last value buffer
        lens = [(n := r.item()) for r in forward_batch.seq_lens]
        self.max_len = torch.tensor(n).to(torch.int64)  # negative: a length leaked from a comprehension
        rows = {i: r for i in self.layer_ids if (r := pool.get_key_buffer(i)[forward_batch.out_cache_loc]) is not None}
        self.rows0 = rows[self.layer_ids[0]].to(self.dtype)  # negative: gathered rows through the same shape
        return shapes, lens
