import torch


class GenericHelperAttention:
    """_to_compute is generic: called with the whole caches and with the step's query."""

    def __init__(self, layer_idx, compute_dtype=torch.float16):
        self.layer_idx = layer_idx
        self.compute_dtype = compute_dtype

    def _to_compute(self, t):
        return t.to(self.compute_dtype)  # note: generic helper, labelled at the calls that pass the caches

    def _caches(self, past_key_value):
        return past_key_value[0], past_key_value[1]

    def forward(self, hidden_states, past_key_value, attn_metadata):
        k_cache, v_cache = self._caches(past_key_value)
        q = self._to_compute(hidden_states)  # negative: the step's hidden states
        if attn_metadata.quant_policy == 8 and not attn_metadata.is_decoding:
            k_dense = self._to_compute(k_cache)  # positive: f4 CL001 the generic helper given the layer's whole K cache
            v_dense = self._to_compute(v_cache)  # positive: f4 CL001 the generic helper given the whole V cache
            return q, k_dense, v_dense
        lens = self._to_compute(attn_metadata.kv_seqlens)  # negative: lengths through the same helper
        return q, lens
