"""A pool wrapper that forwards unknown attributes with __getattr__."""

import torch


class TracedPool:
    """Counts accesses, forwards everything else to the wrapped pool."""

    def __init__(self, inner):
        self._inner = inner
        self.reads = 0

    def __getattr__(self, name):
        self.reads += 1
        return getattr(self._inner, name)


class DelegatingMLABackend:
    def __init__(self, model_runner):
        self.pool = TracedPool(model_runner.token_to_kv_pool)
        self.head_dim = model_runner.model_config.kv_lora_rank + 64

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if save_kv_cache:
            self.pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        buf = self.pool.get_key_buffer(layer.layer_id)
        wide = buf.to(q.dtype)  # positive: f1 CL001 accessor reached through __getattr__ delegation, whole layer cast
        cnt = torch.tensor(self.pool.reads).to(torch.float32)  # negative: scalar counter
        o = torch.empty_like(q[..., : self.head_dim - 64])
        torch.ops.sgl_kernel.mla_decode(q, wide, o, forward_batch.seq_lens, cnt)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = self.pool.get_key_buffer(layer.layer_id)
        kf = kbuf.view(torch.uint8)  # negative: view(dtype) reinterpret, no copy
        ks = k.to(q.dtype)  # negative: batch key of the new tokens
        o = torch.empty_like(q[..., : self.head_dim - 64])
        torch.ops.sgl_kernel.mla_extend(q, ks, kf, o, forward_batch.extend_seq_lens)
        return o
