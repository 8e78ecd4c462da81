import torch
import torch.nn.functional as F


class RedundantHeadDetector:
    """Cosine similarity between heads over the whole key cache (runs inside forward)."""

    def forward(self, query, k_cache, v_cache, attn_metadata):
        k = F.normalize(k_cache.to(query.dtype), dim=-1)  # positive: f5 CL001 whole key cache before normalize
        head_sim = torch.einsum("bthd,btgd->hg", k, k)
        qn = F.normalize(query.float(), dim=-1)  # negative: query
        blocks = attn_metadata.block_offsets.flatten()
        v = F.cosine_similarity(v_cache[blocks].float(), v_cache[blocks].float().roll(1, dims=-2), dim=-1)  # negative: blocks first (one line)
        sim_all = F.cosine_similarity(v_cache.float(), v_cache.float().mean(1, keepdim=True), dim=-1)  # positive: f5 CL001 whole value cache (two conversions, one line)
        return head_sim, qn, v, sim_all
