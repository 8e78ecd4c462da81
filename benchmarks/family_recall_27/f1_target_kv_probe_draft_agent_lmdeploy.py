import torch


class TargetKVProbe:
    """Gives the draft model read access to the target model's cache engine."""

    def __init__(self, cache_engine, dtype):
        self._engine = cache_engine
        self.dtype = dtype

    def keys(self, layer_idx):
        k_cache, _ = self._engine.gpu_cache[layer_idx]
        return k_cache.to(self.dtype)  # positive: f1 CL001 whole target key cache of the layer

    def recent(self, layer_idx, block_offsets):
        k_cache, v_cache = self._engine.gpu_cache[layer_idx]
        return k_cache[block_offsets].to(self.dtype), v_cache[block_offsets].to(self.dtype)  # negative: block gather


class DraftModelAgent:
    def __init__(self, target_agent, draft_model, model_config):
        self.probe = TargetKVProbe(target_agent.cache_engine, model_config.dtype)
        self.model = draft_model
        self.shared_layer = model_config.num_layers - 1

    async def _async_model_forward(self, inputs, step_ctx):
        last_k = self.probe.keys(self.shared_layer)
        blocks = self.probe.recent(self.shared_layer, step_ctx.block_offsets)
        hidden = inputs.target_hidden_states.to(self.probe.dtype)  # negative: hidden states
        return self.model(inputs.input_ids, hidden, last_k, blocks, step_ctx)
