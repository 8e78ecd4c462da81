"""lmdeploy speculative agent: the draft agent points its cache_engine at the target's; the base converts."""
import torch


class BaseModelAgent:
    def __init__(self, model, cache_engine, dtype=torch.float16):
        self.model, self.cache_engine, self.dtype = model, cache_engine, dtype

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        caches = [(k.to(self.dtype), v.to(self.dtype)) for k, v in self.cache_engine.gpu_cache]  # positive: f2 CL001 every layer widened each step (the draft subclass passes the target's engine)
        history = [(k[inputs.block_offsets], v[inputs.block_offsets]) for k, v in self.cache_engine.gpu_cache]
        return self.model(inputs, past_key_values=caches, history=history)


class Eagle3DraftAgent(BaseModelAgent):
    def __init__(self, draft_model, target_agent):
        super().__init__(draft_model, target_agent.cache_engine, dtype=target_agent.dtype)
        self.target_agent = target_agent

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        inputs.target_hidden_states = inputs.target_hidden_states.to(self.dtype)  # negative: hidden states
        inputs.input_ids = inputs.input_ids.to("cuda")  # negative: token ids moved to the device
        return await super()._async_model_forward(inputs, swap_in_map, swap_out_map)
