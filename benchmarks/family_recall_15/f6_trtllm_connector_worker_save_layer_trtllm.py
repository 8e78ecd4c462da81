import torch


class HostOffloadConnectorWorker:
    """KV cache connector worker (TensorRT-LLM PyTorch flow)."""

    def __init__(self, llm_args):
        self.kv_cache_tensor = None
        self.host_dtype = torch.float16
        self.pending = []

    def register_kv_caches(self, kv_cache_tensor):
        self.kv_cache_tensor = kv_cache_tensor
        self._host = torch.empty_like(kv_cache_tensor, dtype=self.host_dtype, device="cpu")  # negative: setup allocation

    def start_load_kv(self, stream):
        return None

    def save_kv_layer(self, layer_idx, stream):
        layer = self.kv_cache_tensor[:, layer_idx]
        self.pending.append(layer.to("cpu", self.host_dtype, non_blocking=True))  # positive: f6 CL001 the whole layer column converted to the host dtype

    def wait_for_save(self, stream):
        for t in self.pending:
            t.record_stream(stream) if t.is_cuda else None
        blocks = self.pending[:1]
        return [b.float() for b in blocks]  # negative: host copies already converted, not the pool
