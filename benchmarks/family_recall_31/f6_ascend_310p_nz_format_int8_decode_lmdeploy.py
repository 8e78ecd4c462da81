# lmdeploy on Ascend 310P (dlinfer): the 310P paged decode wants fp16 caches in the FRACTAL_NZ layout;
# with an int8 cache the backend widens and format-casts each layer on every decode step.
import torch

ACL_FORMAT_FRACTAL_NZ = 29


class Ascend310PPagedAttention:
    def __init__(self, kv_quant_policy):
        self.kv_quant_policy = kv_quant_policy

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        import torch_npu

        if attn_metadata.is_decoding and self.kv_quant_policy == 8:
            k = torch_npu.npu_format_cast(k_cache.to(torch.float16), ACL_FORMAT_FRACTAL_NZ)  # positive: f6 CL001 whole key cache widened before the format cast
            v = torch_npu.npu_format_cast(v_cache.to(torch.float16), ACL_FORMAT_FRACTAL_NZ)  # positive: f6 CL001 whole value cache widened before the format cast
        else:
            k = torch_npu.npu_format_cast(k_cache, ACL_FORMAT_FRACTAL_NZ)  # negative: layout change, same dtype
            v = torch_npu.npu_format_cast(v_cache, ACL_FORMAT_FRACTAL_NZ)  # negative: layout change, same dtype
        new_k = key.to(torch.float16)  # negative: new tokens
        return self._paged_decode_310p(query, new_k, k, v, attn_metadata.block_offsets)
