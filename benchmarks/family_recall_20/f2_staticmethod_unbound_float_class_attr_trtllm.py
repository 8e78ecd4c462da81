import torch


def _identity(t):
    return t


class GenerationKVPrep:
    upcast = staticmethod(_identity)

    def __init__(self, kv_cache_manager):
        self.kv_cache_manager = kv_cache_manager

    def prepare(self, layer_idx, block_ids):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        dense = self.upcast(buf)  # positive: f2 CL001 the subclass sets upcast to torch.Tensor.float, so the whole layer is widened here
        window = self.upcast(buf[block_ids])  # negative: blocks selected before the upcast
        return dense, window


class Fp32ReferenceKVPrep(GenerationKVPrep):
    upcast = staticmethod(torch.Tensor.float)


class VanillaAttentionBackend:
    def __init__(self, kv_cache_manager, reference_mode):
        cls = Fp32ReferenceKVPrep if reference_mode else GenerationKVPrep
        self.prep = cls(kv_cache_manager)

    def forward(self, q, k, v, metadata, layer_idx):
        dense, window = self.prep.prepare(layer_idx, metadata.block_ids)
        return dense, window, k.to(dense.dtype)  # negative: the step's key tensor
