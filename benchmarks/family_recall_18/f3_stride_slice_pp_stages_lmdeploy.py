"""lmdeploy-style interleaved pipeline stages: a rank owns every pp_size-th layer (list stride keeps caches whole)."""
import torch


class InterleavedStageRunner:
    def __init__(self, cache_engine, pp_rank, pp_size, no_fp8_kernel):
        self.cache_engine = cache_engine
        self.pp_rank = pp_rank
        self.pp_size = pp_size
        self.no_fp8_kernel = no_fp8_kernel

    def _stage_caches(self):
        return self.cache_engine.gpu_cache[self.pp_rank :: self.pp_size]

    async def _async_model_forward(self, inputs, model):
        caches = self._stage_caches()
        if self.no_fp8_kernel:
            caches = [(k.to(torch.float16), v) for k, v in caches]  # positive: f3 CL001 each stage layer's whole key cache
            caches = [(k, v.half()) for k, v in caches]  # positive: f3 CL001 each stage layer's whole value cache
        return model(inputs, past_key_values=caches)

    def sample_blocks(self):
        k0, v0 = self.cache_engine.gpu_cache[self.pp_rank]
        return k0[::2].to(torch.float16), v0[1::2].half()  # negative: tensor strides keep half the blocks
