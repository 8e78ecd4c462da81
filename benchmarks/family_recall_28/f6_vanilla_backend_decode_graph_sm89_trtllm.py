"""TensorRT-LLM vanilla attention backend used in the decode CUDA graph on SM89: whole layer widened per replay."""
import torch


class VanillaAttentionSM89:
    def __init__(self, layer_idx, num_heads, head_dim, num_kv_heads):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.num_kv_heads = num_kv_heads

    def forward(self, q, k, v, metadata, attention_mask=None):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        if metadata.is_cuda_graph:
            dense = buf.to(q.dtype)  # positive: f6 CL001 whole layer buffer, captured once and replayed every decode step
            k_cache, v_cache = dense[:, 0], dense[:, 1]
        else:
            ids = metadata.kv_cache_block_offsets[0, : metadata.num_blocks]
            k_cache = buf[ids, 0].to(q.dtype)  # negative: blocks gathered first (eager path)
            v_cache = buf[ids, 1].to(q.dtype)  # negative: blocks gathered first
        scale = mgr.kv_scale_orig_quant.to(q.dtype)  # negative: scale
        return torch.ops.trtllm.vanilla_decode(q, k_cache * scale, v_cache * scale, metadata.kv_lens_cuda)
