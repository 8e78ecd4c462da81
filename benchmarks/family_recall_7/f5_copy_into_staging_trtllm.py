"""f5: a full-size BF16 staging buffer filled each step with copy_, torch.Tensor.copy_ and slice assignment."""
import torch


class StagingManager:
    def __init__(self, num_layers, blocks, tpb, heads, dim):
        self.pools = [torch.empty((blocks, 2, tpb, heads, dim), dtype=torch.float8_e4m3fn, device="cuda") for _ in range(num_layers)]
        self.stage = torch.empty((blocks, 2, tpb, heads, dim), dtype=torch.bfloat16, device="cuda")
        self.raw_stage = torch.empty((blocks, 2, tpb, heads, dim), dtype=torch.float8_e4m3fn, device="cuda")
        self.small = torch.empty((64, 2, tpb, heads, dim), dtype=torch.bfloat16, device="cuda")

    def get_buffers(self, layer_idx):
        return self.pools[layer_idx]


class StagingAttention:
    def __init__(self, layer_idx, mgr: StagingManager):
        self.layer_idx = layer_idx
        self.mgr = mgr

    def forward(self, q, k, v, metadata):
        buf = self.mgr.get_buffers(self.layer_idx)
        self.mgr.stage.copy_(buf)  # positive: f5 CL001 whole FP8 layer copied into a BF16 buffer
        torch.Tensor.copy_(self.mgr.stage, self.mgr.get_buffers(self.layer_idx + 1))  # positive: f5 CL001 unbound copy_ of the next layer
        self.mgr.stage[:] = buf  # positive: f5 CL001 slice assignment copies and converts the whole layer
        self.mgr.raw_stage.copy_(buf)  # negative: same dtype, no conversion
        n = metadata.num_blocks_in_use
        self.mgr.small[:n].copy_(buf[metadata.block_ids])  # negative: blocks in use only
        return self.mgr.stage
