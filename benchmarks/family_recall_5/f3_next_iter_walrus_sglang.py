"""next(iter(...)), walrus and reversed(enumerate(...)) over pool buffers."""

import torch


class WalrusBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.by_name = {f"layer.{i}": b for i, b in enumerate(self.pool.kv_buffer)}
        self.masks = {f"layer.{i}": torch.ones(64, dtype=torch.bool) for i in range(4)}
        self.dtype = model_runner.dtype
        self.shadow = {}

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if (buf := self.by_name.get(f"layer.{layer.layer_id}")) is not None:
            b = buf.to(self.dtype)  # positive: f3 CL001 buffer bound by a walrus from a dict of pool buffers
        else:
            b = next(iter(self.by_name.values())).to(self.dtype)  # positive: f3 CL001 first layer's whole buffer via next(iter(values()))
        m = next(iter(self.masks.values())).to(torch.float32)  # negative: small mask
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_decode(q, b, m, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = next(iter(self.by_name.values()))
        moved = buf.to(q.device)  # negative: device only
        raw = buf.view(torch.int8)  # negative: view(dtype) reinterpret
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.mla_extend(q, moved, raw, o, forward_batch.extend_seq_lens)
        return o

    def init_forward_metadata(self, forward_batch):
        for i, buf in reversed(list(enumerate(self.pool.kv_buffer))):
            if i in forward_batch.refresh_layers:
                self.shadow[i] = buf.to(torch.bfloat16)  # positive: f3 CL001 whole buffers from reversed(enumerate(kv_buffer)) cast at metadata time
        self.seq = forward_batch.seq_lens.to(torch.int32)  # negative: per-batch lengths
