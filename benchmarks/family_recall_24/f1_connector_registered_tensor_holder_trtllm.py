# TensorRT-LLM KV cache connector worker: register_kv_caches wraps the pool tensor in a
# holder object; save_kv_layer reads the layer through it.
import torch


class _RegisteredPool:
    def __init__(self, tensor):
        self.tensor = tensor

    def layer(self, idx):
        return self.tensor[idx]


class ExportConnectorWorker:
    def register_kv_caches(self, kv_cache_tensor):
        self.pool = _RegisteredPool(kv_cache_tensor)

    def save_kv_layer(self, layer_idx, stream):
        layer = self.pool.layer(layer_idx)
        with torch.cuda.stream(stream):
            widened = layer.to(torch.bfloat16)  # positive: f1 CL001 whole layer through the registered holder
            for req in self._pending:
                req.sink.write(widened[req.block_ids])
                req.sink.write_raw(layer[req.block_ids].to("cpu"))  # negative: blocks then a device move
