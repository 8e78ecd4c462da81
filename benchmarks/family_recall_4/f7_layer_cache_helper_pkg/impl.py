import torch
from vllm.forward_context import get_forward_context

from f7_layer_cache_helper_pkg import utils


class HelperImpl:
    def __init__(self, num_heads, head_size, scale):
        self.num_heads = num_heads
        self.head_size = head_size
        self.scale = scale

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        fc = get_forward_context()
        t = utils.layer_cache(fc, layer.layer_name)
        t = t.to(torch.bfloat16)  # positive: f7 CL001 helper in utils.py returns the layer's whole kv_cache
        used = utils.used_blocks(fc, layer.layer_name, attn_metadata.block_table).to(torch.bfloat16)  # negative: helper gathers blocks
        slots = utils.slot_mapping(fc, layer.layer_name).to(torch.int64)  # negative: slot mapping
        kp = utils.layer_cache(fc, layer.layer_name)[0].to(query.dtype)  # positive: f7 CL001 key plane of the helper's whole cache
        return t, used, slots, kp
