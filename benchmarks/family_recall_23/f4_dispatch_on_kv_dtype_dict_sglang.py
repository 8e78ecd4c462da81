# sglang torch-native backend: an upcast function is chosen from a dict keyed by the kv cache dtype string.
import torch


def _identity(buf, dtype):
    return buf


def _upcast(buf, dtype):
    return buf.to(dtype)  # positive: f4 CL001 whole pool buffer passed through the dispatch table


_READERS = {"auto": _identity, "bf16": _identity, "fp8_e4m3": _upcast, "fp8_e5m2": _upcast}


class TorchNativeAttnBackend:
    def __init__(self, model_runner):
        self.reader = _READERS[model_runner.server_args.kv_cache_dtype]

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_cache = self.reader(pool.get_key_buffer(layer.layer_id), q.dtype)
        v_cache = self.reader(pool.get_value_buffer(layer.layer_id), q.dtype)
        k_scale = layer.k_scale.to(q.dtype) if layer.k_scale is not None else None  # negative: scale
        return self._run_sdpa_forward_extend(q, k_cache, v_cache, forward_batch, layer, k_scale)
