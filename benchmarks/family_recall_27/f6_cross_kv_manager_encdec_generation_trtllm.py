import torch


class CrossAttention:
    """Encoder-decoder generation: cross KV lives in a second manager, filled once per request."""

    def __init__(self, layer_idx, num_heads, head_dim, dtype):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.dtype = dtype

    def forward(self, q, encoder_hidden_states, attn_metadata):
        cross_mgr = attn_metadata.cross_kv_cache_manager
        if attn_metadata.is_context:
            enc = encoder_hidden_states.to(self.dtype)  # negative: encoder hidden states
            return self._fill_and_attend(q, enc, cross_mgr, attn_metadata)
        buf = cross_mgr.get_buffers(self.layer_idx)
        if buf.dtype != self.dtype:
            kv = buf.to(self.dtype)  # positive: f6 CL001 every block of the cross-attention layer, each generation step
        else:
            kv = buf
        ids = attn_metadata.cross_block_ids
        first = cross_mgr.get_buffers(self.layer_idx)[ids[:, 0]].to(self.dtype)  # negative: first block of each sequence
        return self._sdpa(q, kv[:, 0], kv[:, 1], first, attn_metadata)
