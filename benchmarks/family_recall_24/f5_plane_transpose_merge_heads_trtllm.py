# TensorRT-LLM vanilla attention on a model without FP8 context kernels: the manager
# buffer [blocks, 2, heads, tokens_per_block, dim] becomes dense per plane.
import torch


class VanillaAttention:
    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        num_blocks, _, heads, tpb, dim = buf.shape
        keys = buf[:, 0].transpose(1, 2).reshape(num_blocks * tpb, heads * dim).to(q.dtype)  # positive: f5 CL001 whole key plane, transposed and merged
        used = metadata.num_used_blocks
        values = buf[:used, 1].transpose(1, 2).reshape(used * tpb, heads * dim).to(q.dtype)  # negative: prefix of blocks
        if metadata.kv_scale_quant_orig is not None:
            s = metadata.kv_scale_quant_orig.to(q.dtype)  # negative: dequant scale
            keys, values = keys * s[0], values * s[1]
        return self._sdpa(q, keys, values, metadata)
