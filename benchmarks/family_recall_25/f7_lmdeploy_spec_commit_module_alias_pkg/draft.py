from . import kv_ops as ops


class SpecModelAgent:
    def __init__(self, target_cache_engine, draft_cache_engine, shared_layers):
        self.target = target_cache_engine
        self.draft = draft_cache_engine
        self.shared_layers = shared_layers
        self.warm = [ops.warm_copy(target_cache_engine.gpu_cache[i][0]) for i in shared_layers]

    async def _async_model_forward(self, inputs, swap_in_map, swap_out_map):
        for t_idx, d_idx in self.shared_layers.items():
            target_k = self.target.gpu_cache[t_idx][0]
            draft_k = self.draft.gpu_cache[d_idx][0]
            if inputs.is_decoding:
                ops.commit_blocks(target_k, draft_k, inputs.block_offsets[:, -1])
            else:
                ops.commit_layer(target_k, draft_k)
        return inputs
