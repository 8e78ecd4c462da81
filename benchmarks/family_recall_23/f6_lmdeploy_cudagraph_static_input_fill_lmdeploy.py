# lmdeploy CUDA graph runner for a decode kernel without int8 support: static inputs are filled per replay.
import torch


class CUDASingleGraphRunner:
    def __init__(self, model, max_batches, max_tokens, num_blocks, is_decoding, pool, model_config, device):
        self.meta = {"kv_dtype": model_config.dtype}
        self.warm_kv = None

    def capture(self, **kwargs):
        caches = kwargs["past_key_values"]
        self.warm_kv = caches[0][0].to(self.meta["kv_dtype"])  # negative: capture is setup
        return self.model(**kwargs)

    def forward(self, **kwargs):
        caches = kwargs["past_key_values"]
        for idx, (k_cache, v_cache) in enumerate(caches):
            self._static_k[idx].copy_(k_cache.to(self.meta["kv_dtype"]))  # positive: f6 CL001 per-replay widened copy of a whole cache
            self._static_v[idx].copy_(v_cache)  # negative: no conversion
        self._graph.replay()
        return self._output
