import torch


def _read_native(pool, layer_id, dtype):
    return pool.get_key_buffer(layer_id)


def _read_upcast(pool, layer_id, dtype):
    return pool.get_key_buffer(layer_id).to(dtype)  # positive: f4 CL001 picked by name from globals() in forward_decode


def _read_rows(pool, layer_id, dtype, loc=None):
    return pool.get_key_buffer(layer_id)[loc].to(dtype)  # negative: gathered rows


class TorchNativeMLABackend:
    def __init__(self, model_runner):
        self.mode = "upcast" if not model_runner.server_args.fp8_mla_kernel else "native"

    def forward_decode(self, q, k, v, layer, forward_batch):
        reader = globals()[f"_read_{self.mode}"]
        kv = reader(forward_batch.token_to_kv_pool, layer.layer_id, q.dtype)
        return torch.matmul(q, kv.transpose(-1, -2))

    def forward_extend(self, q, k, v, layer, forward_batch):
        kv = _read_rows(forward_batch.token_to_kv_pool, layer.layer_id, q.dtype, forward_batch.out_cache_loc)
        return torch.matmul(q, kv.transpose(-1, -2))
