import torch


class LayerCodec:
    def __init__(self, wire_dtype=torch.bfloat16):
        self.wire_dtype = wire_dtype

    def encode(self, kv_layer):
        return kv_layer.to(self.wire_dtype)  # positive: f7 CL001 every caller (connector.py save_kv_layer) passes kv_layer

    def encode_rows(self, kv_layer, slots):
        return kv_layer.flatten(0, 1)[slots].to(self.wire_dtype)  # negative: the step's slots
