import torch


class MLAGenerationFallback:
    def __init__(self, layer_idx, kv_lora_rank, rope_dim):
        self.layer_idx = layer_idx
        self.kv_lora_rank = kv_lora_rank
        self.rope_dim = rope_dim

    def forward(self, q, attn_metadata):
        mgr = attn_metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        latent, rope = buf[..., : self.kv_lora_rank], buf[..., self.kv_lora_rank:]
        joined = torch.cat([latent, rope], dim=-1).to(q.dtype)  # positive: f5 CL001 cat of two last-dim halves is the whole buffer
        layers = torch.stack([mgr.get_buffers(i) for i in (0, 1)]).float()  # positive: f5 CL001 stack of whole layers
        blk = attn_metadata.kv_cache_block_offsets[0, :, 0]
        rows = torch.cat([latent[blk], rope[blk]], dim=-1).to(q.dtype)  # negative: gathered blocks
        shape = torch.stack([torch.tensor(buf.shape)]).float()  # negative: shape tensor
        return q, joined, layers, rows, shape
