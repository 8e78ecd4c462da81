# TensorRT-LLM torch backend for a GPU without FP8 attention kernels: subclass overrides _gather_kv.
import torch


class TorchSdpaAttention:
    def _gather_kv(self, metadata):
        mgr = metadata.kv_cache_manager
        buf = mgr.get_buffers(self.layer_idx)
        return buf[:, 0], buf[:, 1]

    def forward(self, q, k, v, metadata, **kwargs):
        k_cache, v_cache = self._gather_kv(metadata)
        return self._sdpa(q, k_cache, v_cache, metadata)


class TorchSdpaAttentionSm75(TorchSdpaAttention):
    def _gather_kv(self, metadata):
        k_cache, v_cache = super()._gather_kv(metadata)
        if k_cache.dtype == torch.float8_e4m3fn:
            k_cache = k_cache.to(torch.float16)  # positive: f2 CL001 whole key plane from super()._gather_kv
            v_cache = v_cache.to(torch.float16)  # positive: f2 CL001 whole value plane from super()._gather_kv
        return k_cache, v_cache

    def forward(self, q, k, v, metadata, **kwargs):
        q = q.to(torch.float16)  # negative: query
        return super().forward(q, k, v, metadata, **kwargs)
