import torch


def _as_dense(buf, dtype):
    return buf.to(dtype)  # positive: f4 CL001 helper chosen by match, only given whole layers


def _as_rows(buf, locs, dtype):
    return buf[locs].to(dtype)  # negative: gathered rows


class MatchDispatchBackend:
    def __init__(self, model_runner, mode):
        self.pool = model_runner.token_to_kv_pool
        self.mode = mode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = self.pool.get_key_buffer(layer.layer_id)
        match self.mode:
            case "dense":
                return _as_dense(buf, q.dtype)
            case "rows":
                return _as_rows(buf, forward_batch.out_cache_loc, q.dtype)
            case _:
                return buf
