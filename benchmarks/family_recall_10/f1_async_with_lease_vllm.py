"""A connector loads through an async context manager lease that yields the registered caches."""
import asyncio
import contextlib

import torch


class CacheLeaser:
    def __init__(self):
        self.kv_caches = {}
        self.req_ids = torch.zeros(8, dtype=torch.int64)

    @contextlib.asynccontextmanager
    async def lease(self):
        yield self.kv_caches


class AsyncLeaseConnector:
    def __init__(self, vllm_config, role):
        self.leaser = CacheLeaser()

    def register_kv_caches(self, kv_caches):
        self.leaser.kv_caches = dict(kv_caches)

    async def _load(self, name):
        async with self.leaser.lease() as caches:
            return caches[name].to(torch.float16)  # positive: f1 CL001 registered cache from an async with lease

    def start_load_kv(self, forward_context, **kwargs):
        for name in forward_context.no_compile_layers:
            asyncio.run(self._load(name))
        ids = self.leaser.req_ids.to(torch.int32)  # negative: request ids
        return ids
