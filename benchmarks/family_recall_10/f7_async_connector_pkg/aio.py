import asyncio

import torch


async def stage_layer(kv_layer, dtype):
    await asyncio.sleep(0)
    return kv_layer.to(dtype)  # positive: f7 CL001 coroutine only awaited with kv_layer


async def stage_slots(slot_mapping):
    return slot_mapping.to(torch.int32)  # negative: slot mapping
