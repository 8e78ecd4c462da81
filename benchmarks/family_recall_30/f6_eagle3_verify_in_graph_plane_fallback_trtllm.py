"""TRT-LLM EAGLE3 target verify captured in the decode CUDA graph: no FP8 tree kernel, so both planes are widened."""
import torch

from tensorrt_llm._torch.attention_backend.trtllm import TrtllmAttention


class Eagle3VerifyGraphAttention(TrtllmAttention):
    fp8_tree_kernel = False

    def forward(self, q, k, v, metadata, attention_mask=None, **kwargs):
        if metadata.is_spec_decoding_enabled and self.has_fp8_kv_cache and not self.fp8_tree_kernel:
            buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
            k_all, v_all = buf[:, 0].to(q.dtype), buf[:, 1].to(q.dtype)  # positive: f6 CL001 both whole planes (one line) in the captured verify step
            tree = metadata.spec_decoding_packed_mask.to(torch.int32)  # negative: tree mask
            return self._tree_reference(q, k_all, v_all, tree, metadata)
        self.pos = metadata.spec_decoding_position_offsets.to(torch.int32)  # negative: position offsets
        return super().forward(q, k, v, metadata, attention_mask=attention_mask, **kwargs)

    def _tree_reference(self, q, k, v, tree, metadata):
        w = torch.einsum("thd,bphd->thbp", q, k).flatten(-2)
        return torch.einsum("thn,nhd->thd", w.softmax(-1), v.flatten(0, 1))
