"""lmdeploy Cambricon MLU: the layer's (k, v) pair widened through torch.utils._pytree.tree_map."""
import torch
from torch.utils import _pytree as pytree


class CambFp8FallbackAttentionImpl:
    def __init__(self, compute_dtype=torch.float16):
        self.compute_dtype = compute_dtype

    def _widen(self, t):
        return t.to(self.compute_dtype)  # positive: f4 CL001 applied by tree_map to each whole cache of the pair

    def forward(self, query, key, value, k_cache, v_cache, attn_metadata):
        if attn_metadata.is_decoding:
            k_cache, v_cache = pytree.tree_map(self._widen, (k_cache, v_cache))
        else:
            blocks = attn_metadata.block_offsets[:, :1]
            k_cache = k_cache[blocks].to(self.compute_dtype)  # negative: first-block gather
        query = pytree.tree_map(lambda t: t.to("mlu"), query)  # negative: device move of the query
        return self._mlu_paged(query, k_cache, v_cache, attn_metadata)

    def _mlu_paged(self, q, k, v, m):
        return q, k, v
