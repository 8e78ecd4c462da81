"""TensorRT-LLM Medusa tree verify: a per-step state record carries the layer buffer into the attention."""
from dataclasses import dataclass

import torch


@dataclass
class _MedusaStepState:
    kv_buffer: torch.Tensor
    block_ids: torch.Tensor
    kv_scale: torch.Tensor


class MedusaTreeVerifyAttention:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def _state(self, metadata):
        mgr = metadata.kv_cache_manager
        return _MedusaStepState(mgr.get_buffers(self.layer_idx), metadata.kv_cache_block_offsets[0], mgr.kv_scale_orig_quant)

    def forward(self, q, k, v, metadata):
        st = self._state(metadata)
        if metadata.use_dense_tree_reference:
            kv = st.kv_buffer.to(torch.bfloat16)  # positive: f1 CL001 the record's whole layer buffer
        else:
            kv = st.kv_buffer[st.block_ids].to(torch.bfloat16)  # negative: blocks gathered first
        scale = st.kv_scale.float()  # negative: scale
        return self._tree_attend(q, kv, scale, metadata.medusa_tree_mask)

    def _tree_attend(self, q, kv, scale, mask):
        return torch.ops.trtllm.medusa_tree_attention(q, kv, scale, mask)
