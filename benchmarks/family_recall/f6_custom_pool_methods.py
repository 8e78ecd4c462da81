"""A latent (MLA) pool defined here with unusual accessor names, and a backend using it."""
import torch

from sglang.srt.layers.attention.base_attn_backend import AttentionBackend


class PagedLatentPool:
    def __init__(self, size, page_size, kv_lora_rank, qk_rope_head_dim, layer_num, start_layer=0, dtype=torch.float8_e4m3fn):
        self.kv_lora_rank = kv_lora_rank
        self.page_size = page_size
        self.start_layer = start_layer
        self.latent = [
            torch.zeros((size + page_size, 1, kv_lora_rank + qk_rope_head_dim), dtype=dtype, device="cuda")
            for _ in range(layer_num)
        ]

    def latent_cache(self, layer_id):
        return self.latent[layer_id - self.start_layer]

    def nope_part(self, layer_id):
        return self.latent[layer_id - self.start_layer][..., : self.kv_lora_rank]

    def rope_part(self, layer_id):
        return self.latent[layer_id - self.start_layer][..., self.kv_lora_rank:]

    def paged(self, layer_id):
        buf = self.latent[layer_id - self.start_layer]
        return buf.view(-1, self.page_size, *buf.shape[1:])


class LatentBackend(AttentionBackend):
    def __init__(self, pool: PagedLatentPool):
        super().__init__()
        self.pool = pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ckv = self.pool.latent_cache(layer.layer_id).to(q.dtype)  # positive: f6 CL001 file-defined accessor
        nope = self.pool.nope_part(layer.layer_id).to(q.dtype)  # positive: f6 CL001 accessor returns a column view of the whole layer
        rope = self.pool.rope_part(layer.layer_id).bfloat16()  # positive: f6 CL001 accessor returns a column view of the whole layer
        pages = self.pool.paged(layer.layer_id).float()  # positive: f6 CL001 accessor returns a paged view of the whole layer
        return ckv, nope, rope, pages

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pages = self.pool.paged(layer.layer_id)[forward_batch.page_table].to(q.dtype)  # negative: page-table gather first
        width = self.pool.nope_part(layer.layer_id).shape[-1]  # negative: shape only
        return pages, width
