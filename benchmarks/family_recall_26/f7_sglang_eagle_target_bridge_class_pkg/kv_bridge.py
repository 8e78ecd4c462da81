import torch


class TargetKVBridge:
    """Hands target-model KV to draft layers that only run bf16 kernels."""

    def __init__(self, target_pool, draft_dtype=torch.bfloat16):
        self.target_pool = target_pool
        self.draft_dtype = draft_dtype

    def dense_layer(self, layer_id):
        buf = self.target_pool.get_key_buffer(layer_id)
        return buf.to(self.draft_dtype)  # positive: f7 CL001 whole target layer, called per draft-extend step from eagle_worker

    def rows(self, layer_id, loc):
        return self.target_pool.get_key_buffer(layer_id)[loc].to(self.draft_dtype)  # negative: rows gathered before the cast

    def scale(self, layer):
        return layer.k_scale.to(self.draft_dtype) if layer.k_scale is not None else None  # negative: scale
