"""TRT-LLM: the draft KV cache manager fetched from the resource manager by ResourceManagerType."""
import enum

import torch


class ResourceManagerType(enum.Enum):
    KV_CACHE_MANAGER = "kv"
    DRAFT_KV_CACHE_MANAGER = "draft_kv"
    SEQ_SLOT_MANAGER = "seq_slot"


class ResourceManager:
    def __init__(self, managers):
        self.resource_managers = dict(managers)

    def get_resource_manager(self, kind):
        return self.resource_managers.get(kind)


class Eagle3DraftEngine:
    def __init__(self, layer_ids):
        self.layer_ids = layer_ids

    def forward(self, scheduled_requests, resource_manager, dtype=torch.bfloat16):
        draft = resource_manager.get_resource_manager(ResourceManagerType.DRAFT_KV_CACHE_MANAGER)
        target = resource_manager.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)
        d0 = draft.get_buffers(self.layer_ids[0]).to(dtype)  # positive: f6 CL001 a draft layer's whole buffer
        t_last = target.get_buffers(self.layer_ids[-1])[:, 1].float()  # positive: f6 CL001 every block's V half of a target layer
        slots = resource_manager.get_resource_manager(ResourceManagerType.SEQ_SLOT_MANAGER)
        seq = torch.tensor(slots.get_slots(scheduled_requests), dtype=torch.int32)  # negative: sequence slots
        rows = draft.get_buffers(self.layer_ids[0])[draft.get_batch_cache_indices(scheduled_requests)[0]].to(dtype)  # negative: gather-then-cast
        return d0, t_last, seq, rows
