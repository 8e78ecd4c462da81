import torch


class AttentionBackendBase:
    def _prepare(self, kv, q):
        return kv

    def forward(self, q, k, v, metadata, layer_idx):
        kv = metadata.kv_cache_manager.get_buffers(layer_idx)
        return self._prepare(kv, q)


class NoFp8GenerationBackend(AttentionBackendBase):
    def _prepare(self, kv, q):
        kv = super()._prepare(kv, q)
        return kv.to(q.dtype)  # positive: f2 CL001 middle class widens the whole layer buffer


class Sm89GenerationBackend(NoFp8GenerationBackend):
    def _prepare(self, kv, q):
        out = super()._prepare(kv, q)
        return out.contiguous()


class Sm90GenerationBackend(AttentionBackendBase):
    def _prepare(self, kv, q):
        return kv.view(torch.uint8)  # negative: reinterpret view, no conversion


def pick_backend(sm):
    return Sm90GenerationBackend() if sm >= 90 else Sm89GenerationBackend()
