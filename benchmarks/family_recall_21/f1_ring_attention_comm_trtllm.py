import torch
import torch.distributed as dist


class RingKVComm:
    """Context-parallel ring: each rank passes its KV layer to the next rank in bf16."""

    def __init__(self, kv_cache_manager, group, dtype=torch.bfloat16):
        self.manager = kv_cache_manager
        self.group = group
        self.dtype = dtype
        self.rank = dist.get_rank(group)
        self.world = dist.get_world_size(group)

    def layer(self, layer_idx: int) -> torch.Tensor:
        return self.manager.get_buffers(layer_idx)

    def rotate(self, layer_idx: int) -> torch.Tensor:
        send = self.layer(layer_idx).to(self.dtype)  # positive: f1 CL001 whole layer buffer sent around the ring
        recv = torch.empty_like(send)
        dst, src = (self.rank + 1) % self.world, (self.rank - 1) % self.world
        dist.batch_isend_irecv([dist.P2POp(dist.isend, send, dst, self.group), dist.P2POp(dist.irecv, recv, src, self.group)])
        return recv

    def rotate_blocks(self, layer_idx: int, block_ids: torch.Tensor) -> torch.Tensor:
        return self.layer(layer_idx)[block_ids].to(self.dtype)  # negative: blocks selected first


class RingAttentionExecutor:
    def __init__(self, kv_cache_manager, cp_group):
        self.comm = RingKVComm(kv_cache_manager, cp_group)

    def _forward_step(self, scheduled_requests, num_layers, block_ids=None):
        if block_ids is not None:
            return [self.comm.rotate_blocks(i, block_ids) for i in range(num_layers)]
        return [self.comm.rotate(i) for i in range(num_layers)]
