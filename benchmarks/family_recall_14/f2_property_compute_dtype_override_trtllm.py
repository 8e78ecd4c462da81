"""A base backend converting to a compute_dtype property that an SM80 subclass overrides."""
import torch


class TrtllmFallbackAttention:
    def __init__(self, layer_idx, num_heads, head_dim, kv_cache_dtype):
        self.layer_idx = layer_idx
        self.kv_cache_dtype = kv_cache_dtype

    @property
    def compute_dtype(self):
        return self.kv_cache_dtype

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if buf.dtype != self.compute_dtype:
            buf = buf.to(self.compute_dtype)  # positive: f2 CL001 the SM80 subclass's compute_dtype is bf16
        q = q.to(self.compute_dtype)  # negative: the step's queries
        kv_scale = self.kv_scale_orig_quant.to(torch.float32)  # negative: a scale
        return self._dense_attention(q, buf, metadata, kv_scale)


class SM80FallbackAttention(TrtllmFallbackAttention):
    @property
    def compute_dtype(self):
        return torch.bfloat16

    def _dense_attention(self, q, buf, metadata, kv_scale):
        lens = metadata.kv_lens_cuda[: metadata.num_seqs].to(torch.int64)  # negative: lengths
        return torch.ops.trtllm.dense_paged_attention(q, buf, lens, kv_scale)
