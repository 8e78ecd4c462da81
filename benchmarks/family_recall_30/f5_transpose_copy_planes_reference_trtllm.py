"""TRT-LLM vanilla reference generation: torch.transpose_copy of each whole plane to [blocks, heads, tokens, dim]."""
import torch

from tensorrt_llm._torch.attention_backend.vanilla import VanillaAttention


class VanillaReferenceGeneration(VanillaAttention):
    def forward(self, q, k, v, metadata, attention_mask=None, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if metadata.num_contexts == 0:
            k_plane = torch.transpose_copy(buf[:, 0], 1, 2)
            k_ref = k_plane.to(q.dtype)  # positive: f5 CL001 whole key plane after a transpose-only copy
            v_ref = torch.transpose_copy(buf[:, 1], 1, 2).to(q.dtype)  # positive: f5 CL001 whole value plane
            return self._reference(q, k_ref, v_ref, metadata)
        ids = metadata.kv_cache_block_offsets[0, :, 0]
        k_ctx = torch.transpose_copy(buf[ids, 0], 1, 2).to(q.dtype)  # negative: blocks of the batch
        v_ctx = torch.transpose_copy(buf[ids, 1], 1, 2).to(q.dtype)  # negative: blocks of the batch
        return self._reference(q, k_ctx, v_ctx, metadata)

    def _reference(self, q, k, v, metadata):
        s = torch.einsum("thd,bhpd->thbp", q, k).flatten(-2).softmax(-1)
        return torch.einsum("thn,nhd->thd", s, v.transpose(1, 2).flatten(0, 1))
