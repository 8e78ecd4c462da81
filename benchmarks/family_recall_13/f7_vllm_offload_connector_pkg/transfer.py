import torch


class HostStager:
    def __init__(self, host_dtype=torch.bfloat16):
        self.host_dtype = host_dtype

    def stage_layer(self, kv_cache: torch.Tensor) -> torch.Tensor:
        return kv_cache.to("cpu", self.host_dtype)  # positive: f7 CL001 called from start_load_kv with each registered cache

    def stage_blocks(self, kv_cache: torch.Tensor, block_ids: torch.Tensor) -> torch.Tensor:
        return kv_cache[block_ids].to("cpu", self.host_dtype)  # negative: blocks selected first

    def stage_scale(self, scale: torch.Tensor) -> torch.Tensor:
        return scale.to(self.host_dtype)  # negative: a scale


    def scratch_like(self, kv_cache: torch.Tensor) -> torch.Tensor:
        return torch.empty_like(kv_cache, dtype=self.host_dtype, device="cpu")  # negative: allocation, no data converted
