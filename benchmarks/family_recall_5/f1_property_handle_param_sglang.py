"""Per-layer handle objects with properties, passed as parameters to a free function."""

import torch


class LayerHandle:
    def __init__(self, owner, layer_id):
        self._owner = owner
        self.layer_id = layer_id

    @property
    def kv(self):
        return self._owner.pool.kv_buffer[self.layer_id]

    @property
    def recent(self):
        return self._owner.pool.kv_buffer[self.layer_id][self._owner.last_loc]


def attend_whole(handle, q, seq_lens):
    dense = handle.kv.to(q.dtype)  # positive: f1 CL001 every caller passes a LayerHandle whose kv property is the whole layer buffer
    o = torch.empty_like(q)
    torch.ops.sgl_kernel.mla_decode(q, dense, o, seq_lens)
    return o


def attend_recent(handle, q):
    rows = handle.recent.to(q.dtype)  # negative: property gathers the last locations first
    return torch.ops.sgl_kernel.mla_rows(q, rows)


class HandleBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.last_loc = torch.zeros(256, dtype=torch.int64, device="cuda")
        self.handles = [LayerHandle(self, i) for i in range(self.pool.layer_num)]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return attend_whole(self.handles[layer.layer_id], q, forward_batch.seq_lens)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        self.last_loc = forward_batch.out_cache_loc
        h = self.handles[layer.layer_id]
        o1 = attend_recent(h, q)
        o2 = attend_whole(h, q, forward_batch.seq_lens)
        loc32 = self.last_loc.to(torch.int32)  # negative: locations
        return o1 + o2, loc32
