# TensorRT-LLM Medusa tree verification, reference path: the layer buffer is permuted through the explicit
# aten overload torch.ops.aten.permute.default before it is widened for the tree-masked SDPA.
import torch


class MedusaVerifyReference:
    def __init__(self, layer_idx, kv_cache_manager):
        self.layer_idx = layer_idx
        self.mgr = kv_cache_manager

    def forward(self, q, attn_metadata, spec_metadata):
        buf = self.mgr.get_buffers(self.layer_idx)  # [blocks, 2, tokens_per_block, heads, dim]
        hnd = torch.ops.aten.permute.default(buf, [0, 1, 3, 2, 4])
        kv = hnd.to(q.dtype)  # positive: f5 CL001 every block after an axes-only permute
        picked = torch.ops.aten.index_select.default(buf, 0, attn_metadata.block_ids).to(q.dtype)  # negative: block gather
        tree = spec_metadata.medusa_tree_mask.to(q.dtype)  # negative: the tree mask
        return self._tree_sdpa(q, kv, picked, tree)

    def _tree_sdpa(self, q, kv, picked, tree):
        k, v = kv.unbind(1)
        scores = torch.einsum("thd,bhsd->thbs", q, k) + tree
        return torch.einsum("thbs,bhsd->thd", scores.softmax(-1), v), picked
