"""f2: async sources; a subclass awaits super().fetch() and gathers, the base returns the layer."""
import asyncio

import torch


class LayerSource:
    def __init__(self, kv_caches):
        self.kv_caches = kv_caches

    async def fetch(self, name, blocks=None):
        return self.kv_caches[name]


class BlockSource(LayerSource):
    async def fetch(self, name, blocks=None):
        cache = await super().fetch(name)
        return cache[:, blocks]


class AsyncConnector:
    def __init__(self, kv_caches):
        self.source = LayerSource(kv_caches)
        self.blocks = BlockSource(kv_caches)
        self.names = list(kv_caches)
        self.loop = asyncio.new_event_loop()

    async def _pull_whole(self, name):
        t = await self.source.fetch(name)
        return t.to(torch.bfloat16)  # positive: f2 CL001 base fetch returns the whole layer cache

    async def _pull_blocks(self, name, blocks):
        t = await self.blocks.fetch(name, blocks)
        return t.to(torch.bfloat16)  # negative: the override gathers blocks

    def start_load_kv(self, forward_context, **kwargs):
        ids = forward_context.block_ids.to(torch.int64)  # negative: block ids
        for name in self.names:
            self.loop.run_until_complete(self._pull_whole(name))
            self.loop.run_until_complete(self._pull_blocks(name, forward_context.block_ids))

    def wait_for_layer_load(self, layer_name):
        t = self.loop.run_until_complete(self.source.fetch(layer_name))
        return t.half()  # positive: f2 CL001 awaited base fetch, whole layer
