"""The draft executor step."""
import torch

from . import LayerIO


class TwoModelDrafter:
    def __init__(self, draft_manager, target_manager, num_draft_layers, dtype=torch.bfloat16):
        self.draft_manager = draft_manager
        self.target_manager = target_manager
        self.num_draft_layers = num_draft_layers
        self.io = LayerIO(dtype)

    def _forward_step(self, scheduled_requests, new_tensors_device=None):
        dense = [self.io.dense(self.draft_manager.get_buffers(i)) for i in range(self.num_draft_layers)]
        target_k = self.io.key_plane(self.target_manager.get_buffers(0))
        offsets = self.draft_manager.get_batch_cache_indices([r.py_request_id for r in scheduled_requests])
        ctx = self.io.blocks(self.draft_manager.get_buffers(0), torch.tensor(offsets[0]))
        return self._draft(scheduled_requests, dense, target_k, ctx)
