"""Copy-mode spellings: unbound Tensor.bfloat16, to(..., copy=True), to(copy=True), new_empty."""
import torch


class TrtllmSdpaFallback:
    def __init__(self, layer_idx, mode="eager"):
        self.layer_idx = layer_idx
        self.mode = mode

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if self.mode == "eager":
            dense = torch.Tensor.bfloat16(buf)  # positive: f5 CL001 unbound bfloat16 of the whole layer
        elif self.mode == "copy":
            dense = buf.to(torch.bfloat16, copy=True)  # positive: f5 CL001 copy=True still converts
        else:
            dense = buf.to(copy=True)  # negative: a copy, no dtype
        out = buf.new_empty(buf.shape[:1] + q.shape[1:], dtype=torch.bfloat16)  # negative: allocation
        lens = metadata.kv_lens_cuda.to(torch.int32)  # negative: lengths
        return self._sdpa(q, dense, lens, out)
