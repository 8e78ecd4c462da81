import torch


class MLAContextFallback:
    def __init__(self, layer_idx, kv_lora_rank, qk_rope_head_dim, dtype):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.dtype = dtype

    def forward(self, q, compressed_kv, k_pe, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        ckv, kpe = buf.split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        ckv = ckv.to(self.dtype)  # positive: f5 CL001 latent part of split along the head dim, every slot
        kpe = kpe.to(self.dtype)  # positive: f5 CL001 rope part of split along the head dim, every slot
        n = metadata.num_contexts
        head = buf[:n].to(self.dtype)  # negative: first n blocks only
        new = compressed_kv.to(self.dtype)  # negative: the step's latent
        return self._ctx(q, ckv, kpe, head, new)

    def _ctx(self, *a):
        return a[0]
