import torch


class HostLayout:
    def __init__(self, dtype=torch.bfloat16):
        self.dtype = dtype

    def pack(self, kv_layer):
        return kv_layer.flatten(1, 2).to(self.dtype)  # positive: f7 CL001 whole layer handed in by connector.save_kv_layer


def pack_blocks(kv_layer, block_ids, dtype=torch.bfloat16):
    return kv_layer[:, block_ids].to(dtype)  # negative: blocks first
