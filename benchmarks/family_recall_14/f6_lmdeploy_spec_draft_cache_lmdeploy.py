"""A speculative proposer that reads the draft model's cache engine each step."""
import torch


class DraftProposer:
    def __init__(self, draft_cache_engine, dtype=torch.float16):
        self.draft_caches = draft_cache_engine.gpu_cache
        self.dtype = dtype

    def dense_draft_layers(self):
        out = []
        for k_cache, v_cache in self.draft_caches:
            k_dense = k_cache.to(self.dtype)  # positive: f6 CL001 whole draft key cache, every step
            v_dense = v_cache.to(self.dtype)  # positive: f6 CL001 whole draft value cache, every step
            out.append((k_dense, v_dense))
        return out

    def draft_rows(self, block_offsets):
        return [k[block_offsets].to(self.dtype) for k, _ in self.draft_caches]  # negative: the batch's blocks


class SpecModelAgent:
    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        target_out = await self.target_agent._async_model_forward(inputs, swap_in_map, swap_out_map)
        draft_kv = self.proposer.dense_draft_layers()
        hidden = target_out["hidden_states"].to(self.proposer.dtype)  # negative: hidden states
        return await self.proposer.propose(hidden, draft_kv, inputs)
