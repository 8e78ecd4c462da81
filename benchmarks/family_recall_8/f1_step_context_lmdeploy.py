import torch


class StepContextManager:
    def __init__(self):
        self._ctx = None

    def set_context(self, ctx):
        self._ctx = ctx

    def current_context(self):
        return self._ctx


class DeepseekAttention(torch.nn.Module):
    def __init__(self, layer_idx, ctx_mgr):
        super().__init__()
        self.layer_idx = layer_idx
        self.ctx_mgr = ctx_mgr

    def forward(self, hidden_states, attn_metadata):
        ctx = self.ctx_mgr.current_context()
        k_cache, v_cache = ctx.kv_caches[self.layer_idx]
        kc = k_cache.to(hidden_states.dtype)  # positive: f1 CL001 k_cache from the step context's kv_caches
        qh = hidden_states.float()  # negative: hidden states
        pos = ctx.position_ids.to(torch.int64)  # negative: positions
        return kc, qh, pos, v_cache
