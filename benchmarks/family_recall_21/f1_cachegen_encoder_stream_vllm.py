import torch


class CacheGenEncoder:
    """CacheGen-style delta encoder over a layer; built once from the runner's caches."""

    def __init__(self, kv_caches, anchor_every: int = 8):
        self.kv_caches = kv_caches
        self.anchor_every = anchor_every

    def encode_layer(self, idx: int):
        layer = self.kv_caches[idx]
        wide = layer.to(torch.float32)  # positive: f1 CL001 whole layer widened before delta coding
        anchors = wide[:, :, :: self.anchor_every]
        return wide - anchors.repeat_interleave(self.anchor_every, dim=2)[:, :, : wide.shape[2]]

    def encode_value_plane(self, idx: int):
        return self.kv_caches[idx][1].float().diff(dim=1)  # positive: f1 CL001 whole value plane


class CacheGenConnector:
    def __init__(self, runner):
        self.encoder = CacheGenEncoder(runner.kv_caches)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        idx = int(layer_name.split(".")[2])
        slots = kv_layer.flatten(1, 2)[:, attn_metadata.slot_mapping].float()  # negative: slots first
        return self.encoder.encode_layer(idx), self.encoder.encode_value_plane(idx), slots
