from .verify import TargetVerifier


class SpecModelAgent:
    def __init__(self, target_cache_engine, draft_agent, dtype, num_layers):
        self.target_cache_engine = target_cache_engine
        self.draft_agent = draft_agent
        self.verifier = TargetVerifier(dtype)
        self.num_layers = num_layers

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        drafts = await self.draft_agent.propose(inputs)
        gpu_cache = self.target_cache_engine.gpu_cache
        dense = [self.verifier.dense_layer(gpu_cache, i) for i in range(self.num_layers)]
        kept = self.verifier.accepted_blocks(gpu_cache, 0, inputs.block_offsets)
        probs = self.verifier.logits_to_probs(drafts.logits)
        norms = self.verifier.key_norms(gpu_cache)
        return dense, kept, probs, norms
