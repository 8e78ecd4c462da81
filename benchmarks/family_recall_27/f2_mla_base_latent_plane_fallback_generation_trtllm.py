import torch


class MLA:
    def __init__(self, layer_idx, kv_lora_rank, qk_rope_head_dim):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim

    def _latent_plane(self, metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return buf[:, 0]  # every block: [num_blocks, tokens_per_block, 1, 576]

    def forward_generation(self, q, metadata):
        return self._mla_native(q, self._latent_plane(metadata), metadata)


class MLAGenerationFallback(MLA):
    """No FP8-KV MLA generation kernel on this SM: read the latent cache in the query dtype."""

    def forward_generation(self, q, metadata):
        latent = self._latent_plane(metadata).to(q.dtype)  # positive: f2 CL001 the whole latent plane from the base helper
        rope = self._latent_plane(metadata)[..., self.kv_lora_rank :].to(q.dtype)  # positive: f2 CL001 rope part of every block (last dim)
        ctx = self._latent_plane(metadata)[metadata.ctx_block_ids].to(q.dtype)  # negative: context blocks gathered first
        return self._mla_reference(q, latent, rope, ctx, metadata)
