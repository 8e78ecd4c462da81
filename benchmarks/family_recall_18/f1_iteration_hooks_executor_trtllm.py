"""TensorRT-LLM-style PyExecutor whose iteration hooks receive the executor and find the KV manager."""
from enum import Enum

import torch


class ResourceManagerType(Enum):
    KV_CACHE_MANAGER = "KV_CACHE_MANAGER"
    SEQ_SLOT_MANAGER = "SEQ_SLOT_MANAGER"


class KvZeroFractionHook:
    def __init__(self, layers=(0,)):
        self.layers = layers
        self.zero_frac = {}

    def __call__(self, executor):
        mgr = executor.resource_manager.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)
        for layer_idx in self.layers:
            buf = mgr.get_buffers(layer_idx)
            self.zero_frac[layer_idx] = (buf.float() == 0).float().mean().item()  # positive: f1 CL001 every block of the layer widened
            v_amax = buf[:, 1].to(torch.float32).abs().amax()  # positive: f1 CL001 the value plane keeps every block
            self.zero_frac[("v", layer_idx)] = v_amax.item()


class KvBlockUsageHook:
    def __call__(self, executor):
        mgr = executor.resource_manager.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)
        ids = torch.tensor(mgr.get_batch_cache_indices(executor.active_request_ids)[0])
        return mgr.get_buffers(0)[ids].float().norm()  # negative: blocks of one request


class PyExecutor:
    def __init__(self, resource_manager, model_engine):
        self.resource_manager = resource_manager
        self.model_engine = model_engine
        self.active_request_ids = []
        self._iteration_hooks = [KvZeroFractionHook((0, 1)), KvBlockUsageHook()]

    def _forward_step(self, scheduled_requests):
        self.active_request_ids = [r.py_request_id for r in scheduled_requests.generation_requests]
        outputs = self.model_engine.forward(scheduled_requests, self.resource_manager)
        for hook in self._iteration_hooks:
            hook(self)
        return outputs
