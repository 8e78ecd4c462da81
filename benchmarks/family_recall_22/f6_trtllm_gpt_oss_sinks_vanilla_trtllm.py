import torch


class VanillaSinkAttention:
    """GPT-OSS style attention sinks on the vanilla backend (no fp8 sink kernel)."""

    def __init__(self, layer_idx, sinks: torch.nn.Parameter):
        self.layer_idx = layer_idx
        self.sinks = sinks

    def forward(self, q, k, v, metadata, **kwargs):
        sinks = self.sinks.to(torch.float32)  # negative: sink logits parameter
        buf = metadata.kv_cache_manager.get_buffers(self.layer_idx)
        if buf.dtype == torch.float8_e4m3fn:
            buf = buf.to(q.dtype)  # positive: f6 CL001 whole layer widened for the sink path
        k_cache = buf[:, 0]
        return q.to(buf.dtype), k_cache, sinks  # negative: query
