# sglang triton MLA fallback: latent and rope parts recombined across the whole pool before widening.
import torch


class TritonMLAFallback:
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        kv = pool.get_key_buffer(layer.layer_id)
        latent, rope = kv[..., : self.kv_lora_rank], kv[..., self.kv_lora_rank :]
        full = torch.cat((latent, rope), dim=-1).to(q.dtype)  # positive: f5 CL001 last-dim parts re-joined, every slot kept
        rope_sel = rope[forward_batch.out_cache_loc].to(q.dtype)  # negative: new-token rows
        scales = pool.k_scale_buffer[layer.layer_id].to(q.dtype)  # negative: scale buffer
        return self._decode(q, full, rope_sel, scales, layer, forward_batch)
