import torch


class KVNormGuard:
    """Flags overflowing layers of an FP8 manager before the next step."""

    def __init__(self, kv_cache_manager, limit: float = 448.0):
        self.kv_cache_manager = kv_cache_manager
        self.limit = limit

    def _forward_step(self, scheduled_requests, num_layers, block_ids):
        flags = []
        for i in range(num_layers):
            buf = self.kv_cache_manager.get_buffers(i)
            norms = torch.linalg.vector_norm(buf, dim=-1, dtype=torch.float32)  # positive: f5 CL001 whole layer reduced in fp32
            k_norm = torch.linalg.vector_norm(buf[:, 0], ord=float("inf"), dtype=torch.float32)  # positive: f5 CL001 key plane (keeps every slot)
            blk = torch.linalg.vector_norm(buf[block_ids], dim=-1, dtype=torch.float32)  # negative: blocks first
            raw = torch.linalg.vector_norm(buf.view(torch.uint8), dim=-1)  # negative: reinterpret, no dtype= argument
            flags.append((norms.amax() > self.limit, k_norm, blk, raw))
        return flags
