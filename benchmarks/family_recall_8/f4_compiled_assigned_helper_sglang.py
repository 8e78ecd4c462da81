import torch


def _upcast_impl(buf, dtype):
    return buf.to(dtype)  # positive: f4 CL001 compiled helper only ever given the whole latent layer


_upcast = torch.compile(_upcast_impl, dynamic=True)


def _rows_impl(buf, locs, dtype):
    return buf[locs].to(dtype)  # negative: gathered rows


_rows = torch.compile(_rows_impl)


class CompiledAssignedBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = _upcast(self.pool.get_key_buffer(layer.layer_id), q.dtype)
        part = _rows(self.pool.get_key_buffer(layer.layer_id), forward_batch.out_cache_loc, q.dtype)
        return lat, part
