import torch
import torch.distributed as dist


class DecodeContextParallel:
    """Gathers each rank's KV shard for a layer before attention (bf16 on the wire)."""

    def __init__(self, kv_caches, cp_group, wire_dtype=torch.bfloat16):
        self.kv_caches = kv_caches
        self.group = cp_group
        self.wire_dtype = wire_dtype
        self.world = dist.get_world_size(cp_group)

    def gather_layer(self, idx: int) -> torch.Tensor:
        local = self.kv_caches[idx].to(dtype=self.wire_dtype)  # positive: f1 CL001 whole [2, blocks, ...] layer
        out = local.new_empty((self.world, *local.shape))
        dist.all_gather_into_tensor(out, local, group=self.group)
        return out

    def gather_blocks(self, idx: int, block_table: torch.Tensor) -> torch.Tensor:
        local = self.kv_caches[idx][:, block_table.flatten()]
        return local.to(dtype=self.wire_dtype)  # negative: blocks of the batch selected first


class CPModelRunner:
    def __init__(self, kv_caches, cp_group, device):
        self.cp = DecodeContextParallel(kv_caches, cp_group)
        self.device = device

    def execute_model(self, scheduler_output, block_table, full_gather: bool):
        bt = block_table.to(self.device)  # negative: .to(device) of the block table
        fn = self.cp.gather_layer if full_gather else (lambda i: self.cp.gather_blocks(i, bt))
        return [fn(i) for i in range(len(self.cp.kv_caches))]
