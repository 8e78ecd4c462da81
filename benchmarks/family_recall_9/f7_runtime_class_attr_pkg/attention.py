import torch

from .state import Runtime


class RuntimeAttention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata):
        buf = Runtime.kv_cache_manager.get_buffers(self.layer_idx)
        dense = buf.to(q.dtype)  # positive: f7 CL001 manager published on the Runtime class by executor.py
        v_half = Runtime.kv_cache_manager.get_buffers(self.layer_idx)[:, 1].float()  # positive: f7 CL001 V half of that manager's buffer
        slots = torch.as_tensor(Runtime.seq_slot_manager.get_slots(metadata.request_ids), dtype=torch.int32)  # negative: sequence slots
        return dense, v_half, slots
