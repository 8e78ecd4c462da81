"""lmdeploy pytorch engine: a step runner owning the model agent; LoRA adapters and the
paged cache both hang off the agent."""
import torch


class AdapterStepRunner:
    def __init__(self, model_agent, compute_dtype=torch.float16):
        self.agent = model_agent
        self.compute_dtype = compute_dtype
        self.kernel_reads_fp8 = False

    def _dense_caches(self):
        caches = self.agent.cache_engine.gpu_cache
        out = []
        for k_cache, v_cache in caches:
            out.append((
                k_cache.to(self.compute_dtype),  # positive: f1 CL001 whole key cache of a layer, every step
                v_cache.to(self.compute_dtype),  # positive: f1 CL001 whole value cache of a layer
            ))
        return out

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        weights = self.agent.adapter_manager.get_lora_weights(inputs.adapter_ids)
        weights = [w.to(self.compute_dtype) for w in weights]  # negative: adapter weights
        caches = self.agent.cache_engine.gpu_cache if self.kernel_reads_fp8 else self._dense_caches()
        return await self.agent.forward_with(inputs, caches, weights)
