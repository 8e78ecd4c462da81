import torch


class LayerSender:
    def __init__(self, transceiver, wire_dtype=torch.bfloat16):
        self.transceiver = transceiver
        self.wire_dtype = wire_dtype

    def send_layer(self, manager, layer_idx):
        buf = manager.get_buffers(layer_idx)
        self.transceiver.send(buf.to(self.wire_dtype))  # positive: f7 CL001 executor passes the KV cache manager every step

    def send_value_plane(self, manager, layer_idx):
        self.transceiver.send(manager.get_buffers(layer_idx)[:, 1].to(self.wire_dtype))  # positive: f7 CL001 value plane of every block

    def send_blocks(self, manager, layer_idx, block_ids):
        self.transceiver.send(manager.get_buffers(layer_idx)[block_ids].to(self.wire_dtype))  # negative: block gather

    def send_scales(self, manager, layer_idx):
        self.transceiver.send(manager.get_scale_buffers(layer_idx).float())  # negative: scale pool
