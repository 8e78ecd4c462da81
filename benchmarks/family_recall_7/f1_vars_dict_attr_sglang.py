"""f1: the pool's buffers read through vars(pool) and pool.__dict__ instead of attribute syntax."""
import torch


class IndexedMLAPool:
    def __init__(self, size, layer_num, dtype, device):
        self.kv_buffer = [torch.zeros((size + 1, 1, 576), dtype=dtype, device=device) for _ in range(layer_num)]
        self.page_size = 64
        self.free_slots = torch.arange(1, size + 1, dtype=torch.int64, device=device)


class VarsBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.data_type = model_runner.dtype

    def forward_decode(self, q, layer, forward_batch):
        bufs = vars(self.pool)["kv_buffer"]
        lat = bufs[layer.layer_id].to(self.data_type)  # positive: f1 CL001 per-layer list via vars()
        raw = self.pool.__dict__["kv_buffer"][layer.layer_id].float()  # positive: f1 CL001 via __dict__
        size = vars(self.pool)["page_size"]  # negative: an int
        free = vars(self.pool)["free_slots"].to(torch.int32)  # negative: free-slot list, not KV
        return lat, raw, size, free


def make_backend():
    pool = IndexedMLAPool(4096, 4, torch.float8_e4m3fn, "cuda")
    runner = type("R", (), {"token_to_kv_pool": pool, "dtype": torch.bfloat16})()
    return VarsBackend(runner)
