"""TensorRT-LLM-style transceiver formatter: per-layer dict of planes and scales, filtered by name."""
import torch


class LayerPlaneFormatter:
    def __init__(self, kv_cache_manager, peer_dtype=torch.bfloat16):
        self.kv_cache_manager = kv_cache_manager
        self.peer_dtype = peer_dtype

    def planes(self, layer_idx):
        buf = self.kv_cache_manager.get_buffers(layer_idx)
        return {"key": buf[:, 0], "value": buf[:, 1], "kv_scale": self.kv_cache_manager.kv_scales[layer_idx]}

    def format_layer(self, layer_idx):
        out = {}
        for name, t in self.planes(layer_idx).items():
            if name.endswith("scale"):
                out[name] = t.to(torch.float32)  # negative: the scale tensor
            else:
                out[name] = t.to(self.peer_dtype)  # positive: f3 CL001 key and value planes converted whole
        return out


class KvCacheTransceiver:
    def __init__(self, formatter, num_layers):
        self.formatter = formatter
        self.num_layers = num_layers
        self.outbox = []

    def respond_and_send_async(self, req):
        for layer_idx in range(self.num_layers):
            self.outbox.append(self.formatter.format_layer(layer_idx))


class PyExecutor:
    def __init__(self, transceiver):
        self.kv_cache_transceiver = transceiver

    def _forward_step(self, scheduled_requests):
        for req in scheduled_requests.context_requests:
            self.kv_cache_transceiver.respond_and_send_async(req)
