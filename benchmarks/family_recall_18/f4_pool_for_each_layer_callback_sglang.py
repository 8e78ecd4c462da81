"""sglang-style: the pool applies a caller's callback to each layer; the runner snapshots layers per step."""
import torch


class MHATokenToKVPool:
    def __init__(self, size, head_num, head_dim, layer_num, dtype, device):
        shape = (size + 1, head_num, head_dim)
        self.k_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layer_num)]
        self.v_buffer = [torch.zeros(shape, dtype=dtype, device=device) for _ in range(layer_num)]

    def for_each_layer(self, fn, layer_ids=None):
        ids = range(len(self.k_buffer)) if layer_ids is None else layer_ids
        return [fn(i, self.k_buffer[i], self.v_buffer[i]) for i in ids]

    def for_each_layer_rows(self, fn, loc):
        return [fn(i, self.k_buffer[i][loc], self.v_buffer[i][loc]) for i in range(len(self.k_buffer))]


class ModelRunner:
    def __init__(self, model, token_to_kv_pool: MHATokenToKVPool, snapshot_layers=(0,)):
        self.model = model
        self.token_to_kv_pool = token_to_kv_pool
        self.snapshot_layers = snapshot_layers
        self.snapshots = {}

    def _snapshot(self, layer_id, k, v):
        self.snapshots[layer_id] = k.to(torch.float32)  # positive: f4 CL001 callback receives whole layers from for_each_layer; fp32 snapshot

    def _snapshot_rows(self, layer_id, k, v):
        self.snapshots[("rows", layer_id)] = v.to(torch.float32)  # negative: callback receives this step's rows

    def forward(self, forward_batch):
        out = self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)
        if forward_batch.forward_mode.is_decode():
            self.token_to_kv_pool.for_each_layer(self._snapshot, self.snapshot_layers)
        else:
            self.token_to_kv_pool.for_each_layer_rows(self._snapshot_rows, forward_batch.out_cache_loc)
        return out
