"""TRT-LLM on Jetson AGX Orin (SM87, no FP8 kernels): generation widens the FP8 layer buffer inside the decode CUDA graph."""
import torch

from tensorrt_llm._torch.attention_backend.trtllm import TrtllmAttention
from tensorrt_llm._utils import get_sm_version


class OrinGenerationFallback(TrtllmAttention):
    def forward(self, q, k, v, metadata, attention_mask=None, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if get_sm_version() == 87 and self.has_fp8_kv_cache and metadata.num_contexts == 0:
            dense = buf.to(torch.float16)  # positive: f6 CL001 whole FP8 layer buffer in the captured generation step
            return self._reference_generation(q, dense, metadata)
        k_new = k.to(torch.float16)  # negative: new tokens
        self.inv_scale = self.kv_scale_orig_quant.to(torch.float32)  # negative: scale
        return super().forward(q, k_new, v, metadata, attention_mask=attention_mask, **kwargs)

    def _reference_generation(self, q, dense, metadata):
        k, v = dense[:, 0], dense[:, 1]
        w = torch.einsum("thd,bphd->thbp", q, k).flatten(-2).softmax(-1)
        return torch.einsum("thn,nhd->thd", w, v.flatten(0, 1))
