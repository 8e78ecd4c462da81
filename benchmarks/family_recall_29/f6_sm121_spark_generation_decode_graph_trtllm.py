"""TensorRT-LLM on SM121 (DGX Spark): no FP8-KV XQA route for this head size, generation widens inside the graph."""
import torch


def get_sm_version():
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor


class TrtllmAttention:
    def __init__(self, layer_idx, head_dim, dtype=torch.bfloat16):
        self.layer_idx, self.head_dim, self.dtype = layer_idx, head_dim, dtype
        self.fp8_generation = not (get_sm_version() == 121 and head_dim not in (64, 128))

    def forward(self, q, k, v, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        if metadata.is_cuda_graph and not self.fp8_generation:
            dense = buf.to(self.dtype) * mgr.kv_scale_orig_quant.reciprocal()  # positive: f6 CL001 whole layer buffer, captured and replayed per step
            return self._generation_reference(q, dense, metadata)
        scale = mgr.kv_scale_orig_quant.to(torch.float32)  # negative: scale
        ctx = buf[metadata.kv_cache_block_offsets[0]].to(self.dtype)  # negative: context blocks
        return self._context(q, k.to(self.dtype), ctx, scale, metadata)  # negative: new tokens
