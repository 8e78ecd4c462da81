"""sglang HIP (ROCm) MLA fallback: F.pad the 576-wide latent to 640 for the kernel, then widen."""
import torch
import torch.nn.functional as F


class HipMLAFallbackBackend:
    PAD = 640 - 576

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        latent = pool.get_key_buffer(layer.layer_id)
        padded = F.pad(latent, (0, self.PAD)).to(q.dtype)  # positive: f5 CL001 padding the last dim keeps every slot of the pool
        q_pad = F.pad(q, (0, self.PAD)).to(torch.bfloat16)  # negative: the query
        return self._mla_decode(q_pad, padded, forward_batch)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        loc = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices].flatten()
        rows = F.pad(pool.get_key_buffer(layer.layer_id)[loc], (0, self.PAD)).to(q.dtype)  # negative: rows gathered first
        return self._mla_extend(F.pad(q, (0, self.PAD)), rows, forward_batch)
