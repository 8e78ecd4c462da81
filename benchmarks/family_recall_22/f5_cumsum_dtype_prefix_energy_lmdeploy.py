import torch


class PrefixEnergyPolicy:
    """Cumulative key energy along the token axis picks the compression boundary."""

    def forward(self, k_cache, block_offsets):
        energy = torch.cumsum(k_cache.square(), dim=1, dtype=torch.float32)  # positive: f5 CL001 cumsum with dtype= over the whole key cache
        seq = k_cache[block_offsets]
        seq_energy = torch.cumsum(seq.square(), dim=1, dtype=torch.float32)  # negative: one sequence's blocks
        plain = torch.cumsum(k_cache.square(), dim=1)  # negative: no dtype asked
        return energy, seq_energy, plain


class CompressingAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.policy = PrefixEnergyPolicy()

    def forward(self, query, k_cache, v_cache, attn_metadata):
        return self.policy.forward(k_cache, attn_metadata.block_offsets[0])
