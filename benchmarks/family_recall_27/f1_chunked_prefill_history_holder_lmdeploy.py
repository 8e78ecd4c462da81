import torch


class _HistoryKV:
    """Long-context chunked prefill: the fallback kernel reads all history of a layer at once."""

    def __init__(self, cache_engine, compute_dtype):
        self.cache_engine = cache_engine
        self.compute_dtype = compute_dtype

    def history(self, layer_idx):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        k = k_cache.float() if self.compute_dtype == torch.float32 else k_cache.to(self.compute_dtype)  # positive: f1 CL001 whole key cache (either spelling, one line)
        v = v_cache.to(self.compute_dtype)  # positive: f1 CL001 whole value cache
        return k, v

    def blocks(self, layer_idx, block_offsets):
        k_cache, v_cache = self.cache_engine.gpu_cache[layer_idx]
        return k_cache[block_offsets].to(self.compute_dtype), v_cache[block_offsets]  # negative: block gather


class ModelAgent:
    def __init__(self, model, cache_engine, model_config):
        self.model = model
        self.kv = _HistoryKV(cache_engine, model_config.dtype)

    async def _async_model_forward(self, inputs, step_ctx):
        if step_ctx.is_chunked_prefill and step_ctx.max_kv_seqlen > 32768:
            kv = [self.kv.history(i) for i in range(step_ctx.num_layers)]
        else:
            kv = [self.kv.blocks(i, step_ctx.block_offsets) for i in range(step_ctx.num_layers)]
        return self.model(inputs.input_ids, inputs.position_ids.to(torch.long), kv)  # negative: position ids
