import torch


class DecodeKVReceiver:
    """PD disaggregation, decode side: layers arrive into the shared pool."""

    def __init__(self, token_to_kv_pool, compute_dtype):
        self.pool = token_to_kv_pool
        self.compute_dtype = compute_dtype
        self.arrived = set()

    def materialize(self, layer_id):
        buf = self.pool.get_key_buffer(layer_id)
        return buf.to(self.compute_dtype)  # positive: f1 CL001 called from forward_decode with the whole pool layer

    def materialize_rows(self, layer_id, loc):
        return self.pool.get_key_buffer(layer_id)[loc].to(self.compute_dtype)  # negative: gathered rows

    def mark(self, layer_id, status):
        self.arrived.add(layer_id)
        return torch.tensor(status, dtype=torch.int32)  # negative: status tensor


class DisaggDecodeBackend:
    def __init__(self, receiver):
        self.receiver = receiver

    def forward_decode(self, q, k, v, layer, forward_batch):
        kv = self.receiver.materialize(layer.layer_id)
        return q @ kv.transpose(-1, -2)
