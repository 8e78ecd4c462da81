import torch


class KVDriftAnalyzer:
    """Token-to-token key drift along the block axis, for a chunk boundary heuristic."""

    def forward(self, query, k_cache, v_cache, attn_metadata):
        drift = torch.diff(k_cache.float(), dim=1)  # positive: f5 CL001 whole key cache widened before diff
        peak, _ = torch.cummax(v_cache.half().abs(), dim=1)  # positive: f5 CL001 whole value cache
        blocks = attn_metadata.block_offsets
        local = torch.diff(k_cache[blocks].float(), dim=1)  # negative: blocks first
        tail = torch.diff(k_cache[:, -2:], dim=1)  # negative: no conversion
        q_drift = torch.diff(query.float(), dim=0)  # negative: query
        return drift, peak, local, tail, q_drift
