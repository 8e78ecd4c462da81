"""Attention reaches the KV cache manager through executor -> resource manager -> manager."""
import torch


class KVCacheManager:
    def __init__(self, num_layers, num_blocks, tokens_per_block, num_kv_heads, head_dim, dtype, device):
        self.impl_pool = torch.empty(
            (num_blocks, num_layers, 2, tokens_per_block, num_kv_heads, head_dim), dtype=dtype, device=device
        )
        self.block_ids = {}

    def get_buffers(self, layer_idx: int) -> torch.Tensor:
        return self.impl_pool[:, layer_idx]

    def get_block_ids_per_seq(self, request_ids):
        return torch.tensor([self.block_ids[r] for r in request_ids], dtype=torch.int64)


class ResourceManager:
    def __init__(self, managers):
        self.resource_managers = managers

    def get_resource_manager(self, name):
        return self.resource_managers[name]


class PyExecutor:
    def __init__(self, resource_manager: ResourceManager):
        self.resource_manager = resource_manager


class EngineHandle:
    def __init__(self, executor: PyExecutor):
        self.executor = executor


class ChainedAttention:
    def __init__(self, layer_idx, engine: EngineHandle, num_heads, head_dim):
        self.layer_idx = layer_idx
        self.engine = engine
        self.num_heads = num_heads
        self.head_dim = head_dim

    def forward(self, q, k, v, metadata, **kwargs):
        mgr = self.engine.executor.resource_manager.get_resource_manager("kv_cache_manager")
        arena = mgr.get_buffers(self.layer_idx)
        t = arena.to(q.dtype)  # positive: f1 CL001 layer buffer through three objects to the manager
        table = mgr.get_block_ids_per_seq(metadata.request_ids).to(torch.int32)  # negative: block table
        dev = arena.to(q.device, non_blocking=True)  # negative: device only
        return self._attend(q, t, table, dev)

    def __call__(self, q, k, v, metadata):
        rm = self.engine.executor.resource_manager
        everything = rm.resource_managers["kv_cache_manager"].impl_pool.to(dtype=torch.bfloat16)  # positive: f1 CL001 every layer of the arena via the chain
        picked = rm.get_resource_manager("kv_cache_manager").get_buffers(self.layer_idx)[metadata.block_ids].float()  # negative: blocks gathered
        return everything, picked

    def _attend(self, q, kv, table, dev):
        return torch.empty_like(q)
