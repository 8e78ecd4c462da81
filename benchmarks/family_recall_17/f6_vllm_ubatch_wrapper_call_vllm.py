"""vLLM dual-batch overlap: the micro-batch wrapper's __call__ runs per step; with an FP8
cache and no FP8 kernel it widens every registered cache once for both micro-batches."""
import torch


class UBatchWrapper:
    def __init__(self, runnable, vllm_config, kv_caches):
        self.runnable = runnable
        self.kv_caches = kv_caches
        self.compute_dtype = vllm_config.model_config.dtype
        self.needs_widen = vllm_config.cache_config.cache_dtype.startswith("fp8")
        self.dense = [torch.empty(0) for _ in kv_caches]

    def __call__(self, *args, **kwargs):
        if self.needs_widen:
            for i, cache in enumerate(self.kv_caches):
                self.dense[i] = cache.to(self.compute_dtype)  # positive: f6 CL001 whole registered cache, every call
        ubatches = kwargs.pop("ubatch_slices", None) or [slice(None)]
        outs = []
        for sl in ubatches:
            outs.append(self.runnable(*args, dense_caches=self.dense, ubatch=sl, **kwargs))
        return outs

    def warmup(self):
        return [c[:1].to(self.compute_dtype) for c in self.kv_caches]  # negative: one block per cache
