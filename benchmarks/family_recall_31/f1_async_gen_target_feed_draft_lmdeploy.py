# lmdeploy pytorch engine, EAGLE draft agent: the target model's caches reach the draft model through a
# feed object whose async generators yield layers inside _async_model_forward (every draft step).
import torch


class _TargetLayerFeed:
    def __init__(self, target_cache_engine, dtype: torch.dtype):
        self.engine = target_cache_engine
        self.dtype = dtype

    async def dense(self, layer_ids):
        for i in layer_ids:
            k_cache, v_cache = self.engine.gpu_cache[i]
            yield k_cache.to(self.dtype), v_cache.to(self.dtype)  # positive: f1 CL001 every block of the target layer's key and value caches (one line)

    async def recent(self, layer_ids, block_offsets):
        for i in layer_ids:
            k_cache, v_cache = self.engine.gpu_cache[i]
            yield k_cache[block_offsets].to(self.dtype), v_cache[block_offsets].to(self.dtype)  # negative: only the batch's blocks


class EagleDraftAgent:
    def __init__(self, draft_model, target_cache_engine, model_config):
        self.model = draft_model
        self.feed = _TargetLayerFeed(target_cache_engine, model_config.dtype)
        self.tap_layers = model_config.eagle_tap_layers

    async def _async_model_forward(self, inputs, step_ctx):
        if step_ctx.is_decoding:
            feats = [kv async for kv in self.feed.dense(self.tap_layers)]
            return self.model(inputs.input_ids, target_kv=feats)
        rows = [kv async for kv in self.feed.recent(self.tap_layers, step_ctx.block_offsets)]
        return self.model(inputs.input_ids.to(step_ctx.device), target_kv=rows)  # negative: token ids moved to the device
