import torch


class KVCacheTransceiver:
    def __init__(self, kv_cache_manager, num_layers):
        self.kv_cache_manager = kv_cache_manager
        self.num_layers = num_layers

    def layer_pairs(self):
        return [(i, self.kv_cache_manager.get_buffers(i)) for i in range(self.num_layers)]

    def respond_and_send_async(self, req, wire_dtype=torch.bfloat16):
        sent = []
        for pos, (layer_idx, buf) in reversed(list(enumerate(self.layer_pairs()))):
            sent.append(buf.to(wire_dtype))  # positive: f3 CL001 whole layer from the pair list widened for the wire
            sent.append(torch.tensor([pos, layer_idx], dtype=torch.int32))  # negative: header
        return sent

    def send_blocks(self, req, wire_dtype=torch.bfloat16):
        ids = req.block_ids
        return [buf[ids].to(wire_dtype) for _, buf in self.layer_pairs()]  # negative: request blocks first
