"""vLLM-style KV connector worker that mirrors the FP8 caches on the host as fp16 (debug/offload)."""
import torch


class HostMirrorConnectorWorker:
    def __init__(self, worker, host_dtype=torch.float16):
        self._worker = worker
        self.host_dtype = host_dtype
        self._host = []
        self._pending = []

    def _device_caches(self):
        return self._worker.model_runner.kv_caches

    def register_kv_caches(self, kv_caches: dict):
        for cache in kv_caches.values():
            self._host.append(torch.empty(cache.shape, dtype=self.host_dtype, pin_memory=True))
        self._snapshot0 = next(iter(kv_caches.values())).to(self.host_dtype)  # negative: registration is one-time setup

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self._pending.append(kv_layer.flatten(1, 2)[:, attn_metadata.slot_mapping].to("cpu", non_blocking=True))  # negative: slots of this step, device copy only

    def wait_for_save(self):
        for host, cache in zip(self._host, self._device_caches()):
            host.copy_(cache.to(self.host_dtype), non_blocking=True)  # positive: f1 CL001 runner's whole cache widened before the host copy
        last = self._device_caches()[-1]
        self._last_raw = last.to("cpu", non_blocking=True)  # negative: device move, same dtype
        self._last_fp32 = last.to("cpu", torch.float32)  # positive: f1 CL001 whole layer moved and widened
        self._pending.clear()
