import torch


class Fp8NoKernelAttention(torch.nn.Module):
    """lmdeploy pytorch attention on a device without an FP8 paged kernel."""

    def __init__(self, layer_idx):
        super().__init__()
        self.layer_idx = layer_idx

    def forward(self, query, k_cache, v_cache, attn_metadata):
        def widen(c=k_cache, dtype=query.dtype):
            return c.to(dtype)  # positive: f4 CL001 nested def bound by default arguments; both calls pass a whole cache

        def seq_blocks(c, ids=attn_metadata.block_offsets[0]):
            return c[ids].to(query.dtype)  # negative: one sequence's blocks

        k = widen()
        v = widen(v_cache)
        ctx = seq_blocks(k_cache)
        return k, v, ctx
