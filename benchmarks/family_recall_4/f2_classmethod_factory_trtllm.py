"""Per-layer views built by classmethod factories, extended by a subclass through super()."""
import torch


class LayerKV:
    def __init__(self, tensor: torch.Tensor, block_ids: torch.Tensor):
        self.tensor = tensor
        self.block_ids = block_ids
        self.scale = None

    @classmethod
    def from_manager(cls, kv_cache_manager, layer_idx: int, block_ids):
        return cls(kv_cache_manager.get_buffers(layer_idx), block_ids)

    def plane(self, i: int) -> torch.Tensor:
        return self.tensor[:, i]

    def blocks(self) -> torch.Tensor:
        return self.tensor[self.block_ids]


class FP8LayerKV(LayerKV):
    @classmethod
    def from_manager(cls, kv_cache_manager, layer_idx: int, block_ids):
        obj = super().from_manager(kv_cache_manager, layer_idx, block_ids)
        obj.scale = kv_cache_manager.kv_scale(layer_idx)
        return obj


class FactoryAttention:
    def __init__(self, layer_idx, num_heads, head_dim, quant_config=None):
        self.layer_idx = layer_idx
        self.num_heads = num_heads
        self.head_dim = head_dim
        self.view_cls = FP8LayerKV if quant_config is not None else LayerKV

    def forward(self, q, k, v, metadata, **kwargs):
        mgr = metadata.kv_cache_manager
        view = self.view_cls.from_manager(mgr, self.layer_idx, metadata.block_ids)
        t = view.tensor.to(q.dtype)  # positive: f2 CL001 classmethod factory wraps get_buffers(layer_idx)
        vp = view.plane(1).float()  # positive: f2 CL001 value plane of every block
        used = view.blocks().to(q.dtype)  # negative: blocks() gathers first
        if view.scale is not None:
            s = view.scale.to(q.dtype)  # negative: scale
            t = t * s
        return self._attend(q, t, vp, used)

    def _attend(self, q, k_all, v_all, used):
        return torch.empty_like(q)
