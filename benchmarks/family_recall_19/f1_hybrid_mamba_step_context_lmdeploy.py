import torch


class HybridStepContext:
    def __init__(self, kv_caches, state_caches, attn_layer_ids):
        self.kv_caches = kv_caches
        self.state_caches = state_caches
        self.attn_layer_ids = attn_layer_ids


class NemotronHybridAttention(torch.nn.Module):
    def __init__(self, layer_idx, attn_slot):
        super().__init__()
        self.layer_idx = layer_idx
        self.attn_slot = attn_slot

    def forward(self, hidden_states, step_ctx: HybridStepContext):
        k_cache, v_cache = step_ctx.kv_caches[self.attn_slot]
        k_dense = k_cache.to(hidden_states.dtype)  # positive: f1 CL001 whole paged key cache of an attention layer
        v_dense = v_cache.to(hidden_states.dtype)  # positive: f1 CL001 whole paged value cache
        return k_dense, v_dense


class NemotronMambaMixer(torch.nn.Module):
    def __init__(self, layer_idx, state_slot):
        super().__init__()
        self.state_slot = state_slot

    def forward(self, hidden_states, step_ctx: HybridStepContext, state_ids):
        conv_state, ssm_state = step_ctx.state_caches[self.state_slot]
        ssm = ssm_state[state_ids].float()  # negative: recurrent state rows, not the KV pool
        conv = conv_state.to(hidden_states.dtype)  # negative: SSM conv state, not a KV pool
        return conv, ssm
