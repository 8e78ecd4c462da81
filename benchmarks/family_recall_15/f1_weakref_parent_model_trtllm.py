import weakref

import torch


class DeepseekMLAAttention(torch.nn.Module):
    def __init__(self, layer_idx, parent_model):
        super().__init__()
        self.layer_idx = layer_idx
        self._parent = weakref.ref(parent_model)
        self.compute_dtype = torch.bfloat16

    def _manager(self):
        model = self._parent()
        return None if model is None else model.kv_cache_manager

    def forward(self, hidden_states, attn_metadata):
        mgr = self._manager()
        if mgr is None:
            return hidden_states
        buf = mgr.get_buffers(self.layer_idx)
        latent = buf.to(self.compute_dtype)  # positive: f1 CL001 manager reached through a weakref.ref back to the model
        rope = buf[..., 512:].to(self.compute_dtype)  # positive: f1 CL001 last-dim slice keeps every slot
        ctx_blocks = attn_metadata.kv_cache_block_offsets[:, 0]
        ctx = buf[ctx_blocks].to(self.compute_dtype)  # negative: block gather
        weights = self.kv_b_proj.weight.to(self.compute_dtype)  # negative: projection weight
        return self._mla(hidden_states, latent, ctx, weights)

    def _mla(self, h, latent, ctx, w):
        return h
