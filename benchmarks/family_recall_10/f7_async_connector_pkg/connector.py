import asyncio

import torch

from .aio import stage_layer, stage_slots


class AsyncStagingConnector:
    def __init__(self, vllm_config, role):
        self.loop = asyncio.new_event_loop()
        self.pending = {}

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        both = asyncio.gather(stage_layer(kv_layer, torch.float16), stage_slots(attn_metadata.slot_mapping))
        self.pending[layer_name] = self.loop.run_until_complete(both)

    def wait_for_save(self):
        self.pending.clear()
