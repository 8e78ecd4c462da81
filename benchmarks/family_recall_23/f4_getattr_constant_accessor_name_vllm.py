# vLLM v1 KV connector worker: the cache tensor is fetched by a constant attribute name.
import torch


class DebugMirrorConnectorWorker:
    CACHE_ATTR = "kv_cache"

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        layer = self._layers[layer_name]
        cache = getattr(layer, self.CACHE_ATTR)[0]
        self._mirror[layer_name] = cache.to(dtype=torch.float32, non_blocking=True)  # positive: f4 CL001 cache fetched by getattr
        scale = getattr(layer, "_k_scale")
        self._scales[layer_name] = scale.to(torch.float32)  # negative: k scale
