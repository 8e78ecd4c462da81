"""A connector stages kv_layer through asyncio.to_thread(helper, ...) from save_kv_layer."""
import asyncio

import torch


class ThreadStagingConnector:
    def __init__(self, vllm_config, role):
        self.staged = {}
        self.stage_dtype = torch.float16

    def _stage(self, kv_layer, dtype):
        return kv_layer.to(dtype)  # positive: f4 CL001 helper run through to_thread, only given kv_layer

    async def _stage_async(self, name, kv_layer):
        self.staged[name] = await asyncio.to_thread(self._stage, kv_layer, self.stage_dtype)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        asyncio.run(self._stage_async(layer_name, kv_layer))
        slots = attn_metadata.slot_mapping.to(torch.int32)  # negative: slot mapping
        rows = kv_layer[attn_metadata.slot_mapping].to(self.stage_dtype)  # negative: gather-then-cast
        return slots, rows

    def wait_for_save(self):
        self.staged.clear()
