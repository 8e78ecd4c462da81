import torch


class XpuFallbackBackend:
    """Unusual: the dtype method is picked by name from the server args."""

    def __init__(self, model_runner):
        self.cast_name = {"bfloat16": "bfloat16", "float16": "half"}[model_runner.server_args.dtype]

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        wide = getattr(buf, self.cast_name)()  # positive: f5 CL001 dtype method called through getattr on the whole buffer
        same = getattr(buf, "view")(buf.dtype)  # negative: same-dtype view
        lens = getattr(forward_batch.seq_lens, self.cast_name)()  # negative: lengths
        return self._xpu(q, wide, same, lens)

    def _xpu(self, *a):
        return a[0]
