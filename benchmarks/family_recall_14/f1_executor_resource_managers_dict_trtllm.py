"""A model engine step that finds the target and draft managers in the resource-manager dict."""
import torch

from tensorrt_llm._torch.pyexecutor.resource_manager import ResourceManagerType


class PyTorchModelEngine:
    def __init__(self, model, dtype, kv_fp8_fallback):
        self.model = model
        self.dtype = dtype
        self.kv_fp8_fallback = kv_fp8_fallback
        self._dense = {}

    def forward(self, scheduled_requests, resource_manager, new_tensors_device=None):
        managers = resource_manager.resource_managers
        kv_mgr = managers.get(ResourceManagerType.KV_CACHE_MANAGER)
        draft_mgr = managers.get(ResourceManagerType.DRAFT_KV_CACHE_MANAGER)
        if self.kv_fp8_fallback and kv_mgr is not None:
            for layer_idx in range(kv_mgr.num_local_layers):
                self._dense[layer_idx] = kv_mgr.get_buffers(layer_idx).to(self.dtype)  # positive: f1 CL001 every target layer widened each step
        if draft_mgr is not None:
            self._draft0 = draft_mgr.get_buffers(0).to(self.dtype)  # positive: f1 CL001 whole draft layer 0
        ids = [r.py_request_id for r in scheduled_requests.generation_requests]
        if kv_mgr is not None and ids:
            blocks = torch.tensor(kv_mgr.get_batch_cache_indices(ids)[0]).to(torch.int64)  # negative: block ids, not a cache
            self._gen_rows = kv_mgr.get_buffers(0)[blocks].to(self.dtype)  # negative: gathered blocks
        return self.model.forward(scheduled_requests, dense_kv=self._dense)
