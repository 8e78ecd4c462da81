"""lmdeploy-style hybrid (linear-attention + full-attention) step: recurrent state caches beside the KV caches."""
import torch


class HybridStepRunner:
    def __init__(self, model, cache_engine, state_cache_engine, full_attn_layers, no_fp8_kernel):
        self.model = model
        self.cache_engine = cache_engine
        self.state_cache_engine = state_cache_engine
        self.full_attn_layers = list(full_attn_layers)
        self.no_fp8_kernel = no_fp8_kernel

    async def _async_model_forward(self, inputs):
        past = []
        for i in self.full_attn_layers:
            k_cache, v_cache = self.cache_engine.gpu_cache[i][:2]
            if self.no_fp8_kernel:
                k_cache = k_cache.to(torch.bfloat16)  # positive: f6 CL001 whole FP8 key cache of a full-attention layer
                v_cache = v_cache.to(torch.bfloat16)  # positive: f6 CL001 whole FP8 value cache
            past.append((k_cache, v_cache))
        conv_states, ssm_states = self.state_cache_engine.state_caches
        ssm = ssm_states[inputs.state_ids].float()  # negative: recurrent states of this batch, not the KV cache
        conv = conv_states[inputs.state_ids].to(torch.bfloat16)  # negative: conv states of this batch
        return self.model(inputs, past_key_values=past, states=(conv, ssm))
