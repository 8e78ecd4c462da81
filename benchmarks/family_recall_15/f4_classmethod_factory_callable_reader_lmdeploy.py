import torch


class DenseCacheReader:
    def __init__(self, k_caches, v_caches, dtype):
        self.k_caches = k_caches
        self.v_caches = v_caches
        self.dtype = dtype

    @classmethod
    def for_step(cls, step_ctx, dtype):
        ks = [kv[0] for kv in step_ctx.kv_caches]
        vs = [kv[1] for kv in step_ctx.kv_caches]
        return cls(ks, vs, dtype)

    def __call__(self, layer_idx):
        return self.k_caches[layer_idx].to(self.dtype), self.v_caches[layer_idx].to(self.dtype)  # positive: f4 CL001 reader built from the step's kv_caches, called in forward


class LlamaAttentionFallback:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, hidden_states, past_key_value, attn_metadata, step_ctx):
        read = DenseCacheReader.for_step(step_ctx, hidden_states.dtype)
        k, v = read(self.layer_idx)
        offs = attn_metadata.block_offsets
        k_hit = past_key_value[0][offs].to(hidden_states.dtype)  # negative: block gather
        return hidden_states @ k.flatten(0, 1).T, k_hit, v
