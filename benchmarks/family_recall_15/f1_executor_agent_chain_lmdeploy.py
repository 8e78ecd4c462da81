import torch


class StepDebugger:
    """Checks the cache's numerics every N steps, reaching it through engine -> executor -> model agent."""

    def __init__(self, engine, every=64):
        self.engine = engine
        self.every = every
        self.count = 0

    def _gpu_cache(self):
        return self.engine.executor.model_agent.cache_engine.gpu_cache

    def after_forward(self, step_ctx):
        self.count += 1
        if self.count % self.every:
            return None
        k_cache, v_cache = self._gpu_cache()[step_ctx.layer_idx]
        k32 = k_cache.float()  # positive: f1 CL001 whole gpu_cache block tensor through an object chain
        v_all = v_cache.to(torch.float32)  # positive: f1 CL001 value cache of the same layer, whole
        blocks = step_ctx.block_offsets.flatten()
        v32 = v_cache[blocks].float()  # negative: gathered blocks
        return torch.isfinite(k32).all() and torch.isfinite(v32).all()


class ModelAgentWithDebug:
    def __init__(self, engine):
        self.debugger = StepDebugger(engine)

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        out = await self._forward_impl(inputs)
        self.debugger.after_forward(inputs)  # note: per-step caller of after_forward
        return out
