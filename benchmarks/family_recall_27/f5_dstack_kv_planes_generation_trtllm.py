import torch


class VanillaGenerationAttention:
    """Generation on the reference backend: K and V planes are packed side by side on the head axis."""

    def __init__(self, layer_idx, num_kv_heads, head_dim, dtype):
        self.layer_idx = layer_idx
        self.num_kv_heads = num_kv_heads
        self.head_dim = head_dim
        self.dtype = dtype

    def forward(self, q, attn_metadata):
        buf = attn_metadata.kv_cache_manager.get_buffers(self.layer_idx)  # [num_blocks, 2, tokens, heads, dim]
        if attn_metadata.is_cuda_graph or attn_metadata.num_contexts == 0:
            packed = torch.dstack((buf[:, 0], buf[:, 1])).to(self.dtype)  # positive: f5 CL001 both planes of every block stacked
        else:
            ids = attn_metadata.block_ids
            packed = torch.dstack((buf[ids, 0], buf[ids, 1])).to(self.dtype)  # negative: blocks of the batch
        k, v = packed.split(self.num_kv_heads, dim=2)
        return self._sdpa(q.to(self.dtype), k, v, attn_metadata)  # negative: the query
