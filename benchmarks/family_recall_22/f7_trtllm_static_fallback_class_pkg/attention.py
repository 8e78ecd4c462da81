from .kernels import Fallback


class NoFP8Attention:
    def __init__(self, layer_idx):
        self.layer_idx = layer_idx

    def forward(self, q, k, v, metadata, **kwargs):
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        return Fallback.widen_layer(buf), Fallback.widen_scale(metadata.kv_scale)
