"""TensorRT-LLM-style executor with a periodic KV audit (non-finite scan) inside NVTX/profiler ranges."""
import torch


class PyExecutor:
    def __init__(self, model_engine, kv_cache_manager, kv_audit_interval=0):
        self.model_engine = model_engine
        self.kv_cache_manager = kv_cache_manager
        self.kv_audit_interval = kv_audit_interval
        self.iter_counter = 0
        self.kv_bad = {}
        self.recent_blocks = torch.zeros(0, dtype=torch.long)

    def _kv_audit(self):
        mgr = self.kv_cache_manager
        for layer_idx in range(mgr.num_local_layers):
            buf = mgr.get_buffers(layer_idx)
            bad = ~torch.isfinite(buf.float())  # positive: f6 CL001 every block of every layer widened for the scan
            self.kv_bad[layer_idx] = int(bad.sum())
        with torch.profiler.record_function("kv_audit_recent"):
            recent = mgr.get_buffers(0)[self.recent_blocks].float()  # negative: recently written blocks only
            self.kv_bad["recent"] = int((~torch.isfinite(recent)).sum())

    def _forward_step(self, scheduled_requests, new_tensors_device=None):
        with torch.cuda.nvtx.range("_forward_step"):
            outputs = self.model_engine.forward(scheduled_requests, self.kv_cache_manager, new_tensors_device)
        if self.kv_audit_interval and self.iter_counter % self.kv_audit_interval == 0:
            with torch.cuda.nvtx.range("kv_audit"):
                self._kv_audit()
        self.iter_counter += 1
        return outputs
