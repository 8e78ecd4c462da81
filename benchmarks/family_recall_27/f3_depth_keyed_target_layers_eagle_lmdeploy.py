import torch


class EagleMultiStepDrafter:
    def __init__(self, target_cache_engine, num_steps, shared_layers, dtype):
        self.engine = target_cache_engine
        self.num_steps = num_steps
        self.shared_layers = shared_layers  # draft depth -> target layer indices it attends over
        self.dtype = dtype

    def propose(self, inputs, step_ctx):
        by_depth = {
            d: [self.engine.gpu_cache[i] for i in self.shared_layers[d]]
            for d in range(self.num_steps)
        }
        hidden = inputs.hidden_states
        for depth in range(self.num_steps):
            keys, values = [], []
            for k_cache, v_cache in by_depth[depth]:
                keys.append(k_cache.to(self.dtype))  # positive: f3 CL001 whole target key cache from the depth-keyed dict of lists
                values.append(v_cache[step_ctx.block_offsets].to(self.dtype))  # negative: blocks of the batch
            hidden = self.draft_layer(hidden, keys, values, depth)
        return self.lm_head(hidden.to(self.dtype))  # negative: hidden states

    def draft_layer(self, hidden, keys, values, depth):
        return self.layers[depth](hidden, keys, values)
