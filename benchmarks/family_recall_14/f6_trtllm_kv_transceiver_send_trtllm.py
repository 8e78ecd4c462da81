"""Disaggregated context side: each step's ctx requests send every layer, converted when needed."""
import torch

from tensorrt_llm._torch.pyexecutor.resource_manager import ResourceManagerType


class PyExecutorDisaggCtx:
    def __init__(self, model_engine, resource_manager, kv_cache_transceiver, transfer_dtype):
        self.model_engine = model_engine
        self.resource_manager = resource_manager
        self.kv_cache_transceiver = kv_cache_transceiver
        self.transfer_dtype = transfer_dtype

    def _forward_step(self, scheduled_requests, new_tensors_device=None):
        outputs = self.model_engine.forward(scheduled_requests, self.resource_manager, new_tensors_device)
        if self.kv_cache_transceiver is not None and scheduled_requests.context_requests:
            self._send_ctx_cache(scheduled_requests.context_requests)
        return outputs

    def _send_ctx_cache(self, ctx_requests):
        mgr = self.resource_manager.get_resource_manager(ResourceManagerType.KV_CACHE_MANAGER)
        ids = [r.py_request_id for r in ctx_requests]
        for layer_idx in range(mgr.num_local_layers):
            buf = mgr.get_buffers(layer_idx)
            if self.transfer_dtype != buf.dtype:
                buf = buf.to(self.transfer_dtype)  # positive: f6 CL001 whole layer buffer, every step with context requests
            self.kv_cache_transceiver.send_layer(layer_idx, buf, ids)
        for req in ctx_requests:
            idx = torch.tensor(mgr.get_cache_indices(req)).to(torch.int32)  # negative: block indices
            self.kv_cache_transceiver.mark_sent(req, idx)
