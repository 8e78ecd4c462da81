"""lmdeploy EAGLE draft agent: a property returns a widening closure that the step calls on the target caches."""
import torch


class EagleDraftAgent:
    def __init__(self, target_cache_engine, compute_dtype=torch.bfloat16):
        self.target_cache_engine = target_cache_engine
        self.compute_dtype = compute_dtype

    @property
    def widen(self):
        dtype = self.compute_dtype

        def _apply(k_cache, v_cache):
            return k_cache.to(dtype), v_cache.to(dtype)  # positive: f4 CL001 both whole target layers (one line), closure from the property
        return _apply

    @property
    def recent(self):
        def _apply(k_cache, block_offsets):
            return k_cache[block_offsets[:, -1]].to(self.compute_dtype)  # negative: last-block gather
        return _apply

    async def _async_model_forward(self, inputs, step_ctx):
        layers = [self.widen(k, v) for k, v in self.target_cache_engine.gpu_cache]
        tails = [self.recent(k, step_ctx.block_offsets) for k, _ in self.target_cache_engine.gpu_cache]
        hidden = inputs.target_hidden_states.to(self.compute_dtype)  # negative: hidden states
        return layers, tails, hidden
