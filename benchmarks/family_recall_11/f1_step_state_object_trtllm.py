import torch


class _StepState:
    __slots__ = ("mgr", "layer", "num_tokens")

    def __init__(self, mgr, layer, num_tokens):
        self.mgr = mgr
        self.layer = layer
        self.num_tokens = num_tokens


class FallbackAttention:
    def __init__(self, layer_idx, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, **kwargs):
        self._state = _StepState(metadata.kv_cache_manager, self.layer_idx, q.shape[0])
        if metadata.num_generations > 0:
            return self._generation(q, metadata)
        return self._context(q, k, v)

    def _generation(self, q, metadata):
        st = self._state
        buf = st.mgr.get_buffers(st.layer)
        dense = buf.to(q.dtype)  # positive: f1 CL001 whole layer buffer of the manager held by the step state
        lens = metadata.kv_lens_cuda[: st.num_tokens].to(torch.int32)  # negative: lengths
        blocks = st.mgr.get_block_ids_per_seq(metadata.request_ids)
        return dense, lens, blocks

    def _context(self, q, k, v):
        return k.to(q.dtype), v.to(q.dtype)  # negative: the step's k and v
