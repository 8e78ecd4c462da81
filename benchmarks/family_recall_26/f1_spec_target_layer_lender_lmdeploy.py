import torch


class TargetCacheLender:
    """Lends the target model's cache layers to the draft model of lmdeploy's spec agent."""

    def __init__(self, cache_engine, shared_layers):
        self._engine = cache_engine
        self._shared = set(shared_layers)

    def layer(self, idx):
        return self._engine.gpu_cache[idx]


class SpecDraftAgent:
    def __init__(self, draft_model, lender, draft_dtype=torch.float16):
        self.model = draft_model
        self.lender = lender
        self.draft_dtype = draft_dtype

    def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        past_key_values = []
        for idx in sorted(self.lender._shared):
            k_cache, v_cache = self.lender.layer(idx)[:2]
            k = k_cache.half()  # positive: f1 CL001 whole target key cache lent through another object, per draft step
            v = v_cache.to(self.draft_dtype)  # positive: f1 CL001 whole target value cache, same path
            past_key_values.append((k, v))
        blocks = inputs.block_offsets
        peek = self.lender.layer(0)[0][blocks[0]].half()  # negative: the first request's blocks gathered before the cast
        return self.model(inputs.input_ids, past_key_values=past_key_values, peek=peek)
