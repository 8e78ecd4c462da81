"""lmdeploy ROCm (Triton) ops backend: fill_buffers_cudagraph widens the int8 caches into graph buffers per replay."""
import torch


class ROCmOpsBackend:
    @staticmethod
    def make_buffers_cudagraph(graph_meta, *args, **kwargs):
        caches = kwargs["past_key_values"]
        return {"dense_kv": [(torch.empty_like(k, dtype=torch.float16), torch.empty_like(v, dtype=torch.float16))  # negative: capture allocation
                             for k, v in caches]}

    @staticmethod
    def fill_buffers_cudagraph(graph_meta, buffers, *args, **kwargs):
        for (dk, dv), (k, v) in zip(buffers["dense_kv"], kwargs["past_key_values"]):
            dk.copy_(k.to(dk.dtype))  # positive: f6 CL001 whole key cache of every layer, every replay
            dv.copy_(v.to(dv.dtype))  # positive: f6 CL001 whole value cache
        buffers["kv_seqlens"].copy_(kwargs["attn_metadata"].kv_seqlens.to(torch.int32))  # negative: lengths
        buffers["block_offsets"][: graph_meta.num_blocks].copy_(kwargs["attn_metadata"].block_offsets)
        return buffers

    @staticmethod
    def update_meta_cudagraph(graph_meta, buffers):
        return buffers["dense_kv"][0][0][: graph_meta.num_blocks].to(torch.float16)  # negative: same dtype, prefix
