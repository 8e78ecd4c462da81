import torch

from .fields import DenseKeyField, RowKeyField


class _LayerView:
    keys = DenseKeyField()
    new_keys = RowKeyField()

    def __init__(self, layer, forward_batch, compute_dtype):
        self.layer = layer
        self.forward_batch = forward_batch
        self.compute_dtype = compute_dtype


class TargetVerifyBackend:
    """Target verify of EAGLE drafts with a tree mask; the fallback reads the pool densely."""

    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        view = _LayerView(layer, forward_batch, q.dtype)
        if forward_batch.forward_mode.is_target_verify():
            mask = forward_batch.spec_info.custom_mask.to(torch.bool)  # negative: the tree mask
            return self._tree_attend(q, view.keys, mask, layer)
        return self._ragged(q, k.to(q.dtype), view.new_keys, layer)  # negative: new tokens (batch tensor)
