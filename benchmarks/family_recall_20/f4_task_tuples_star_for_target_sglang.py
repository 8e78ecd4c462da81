import torch


def widen_plane(buf, dtype):
    return buf.to(dtype)  # positive: f4 CL001 the task list hands this helper whole key and value layers


def gather_rows(buf, loc, dtype):
    return buf[loc].to(dtype)  # negative: rows selected before the cast


class AscendTorchFallbackBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self.pool.get_kv_buffer(layer.layer_id)
        tasks = [
            (widen_plane, k_buf, self.dtype),
            (widen_plane, v_buf, self.dtype),
            (gather_rows, k_buf, forward_batch.out_cache_loc, self.dtype),
        ]
        results = []
        for fn, *args in tasks:
            results.append(fn(*args))
        return results
