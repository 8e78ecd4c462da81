"""TensorRT-LLM EAGLE draft reference: GQA heads expanded with unsqueeze/expand/reshape before widening."""
import torch


class EagleDraftReferenceAttention:
    def __init__(self, layer_idx, num_heads, num_kv_heads, dtype=torch.bfloat16):
        self.layer_idx, self.dtype = layer_idx, dtype
        self.n_rep = num_heads // num_kv_heads

    def forward(self, q, k, v, metadata, spec_metadata):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        nb, kvf, tpb, hk, d = buf.shape
        k_plane = buf[:, 0].unsqueeze(3).expand(nb, tpb, hk, self.n_rep, d).reshape(nb, tpb, hk * self.n_rep, d)
        k_dense = k_plane.to(self.dtype)  # positive: f5 CL001 whole key plane, heads expanded
        ids = metadata.kv_cache_block_offsets[0]
        v_used = buf[ids, 1].unsqueeze(3).expand(-1, -1, -1, self.n_rep, -1).flatten(2, 3).to(self.dtype)  # negative: blocks first
        draft_tokens = spec_metadata.draft_tokens.to(torch.int64)  # negative: token ids
        return self._sdpa(q, k_dense, v_used, draft_tokens)

    def _sdpa(self, q, k_dense, v_used, draft_tokens):
        scores = torch.einsum("thd,bphd->thbp", q.to(self.dtype), k_dense)  # negative: the query
        probs = scores.flatten(2).softmax(-1)
        return probs, v_used, draft_tokens
