"""Latent and rope parts taken with split_with_sizes / unsafe_split (method and functional forms)."""
import torch


class SplitSizesBackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        sizes = [self.kv_lora_rank, self.qk_rope_head_dim]
        lat = kv.split_with_sizes(sizes, dim=-1)[0].to(q.dtype)  # positive: f5 CL001 every token's latent via split_with_sizes
        nope, pe = kv.unsafe_split(self.kv_lora_rank, dim=-1)
        pe_up = pe.to(q.dtype)  # positive: f5 CL001 every token's rope part via unsafe_split
        lat2 = torch.unsafe_split(kv, self.kv_lora_rank, -1)[0].bfloat16()  # positive: f5 CL001 latent via functional unsafe_split
        rows = kv[forward_batch.out_cache_loc].split_with_sizes(sizes, dim=-1)[0].to(q.dtype)  # negative: gathered rows, then split
        q_nope = q.split_with_sizes([self.kv_lora_rank, self.qk_rope_head_dim], -1)[0].float()  # negative: batch query
        return lat, pe_up, lat2, rows, q_nope
