import torch


class TrtllmAttentionBase:
    def forward(self, q, k, v, attn_metadata, kv_cache, layer_idx):
        return q @ kv_cache.flatten(0, -2).T


class VanillaDebugAttention(TrtllmAttentionBase):
    def __init__(self, check_every=0):
        self.check_every = check_every
        self.steps = 0

    def forward(self, q, k, v, attn_metadata, kv_cache, layer_idx):
        widened = None
        try:
            widened = kv_cache.to(torch.float32)  # positive: f2 CL001 whole layer widened before delegating
            return super().forward(q.float(), k, v, attn_metadata, widened, layer_idx)
        finally:
            self.steps += 1
            if widened is not None and self.check_every and self.steps % self.check_every == 0:
                torch.isfinite(widened).all()

    def check_new_tokens(self, kv_cache, attn_metadata):
        return kv_cache[attn_metadata.kv_cache_block_offsets[0, 0, -1]].to(torch.float32)  # negative: one block
