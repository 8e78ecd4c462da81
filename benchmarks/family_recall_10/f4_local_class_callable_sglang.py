"""A converter class defined inside forward_extend; its instance is called on the pool layer."""
import torch


class LocalClassBackend:
    def __init__(self, dtype):
        self.dtype = dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        target = q.dtype

        class _Up:
            def __init__(self, dt):
                self.dt = dt

            def __call__(self, t):
                return t.to(self.dt)  # positive: f4 CL001 local converter only applied to the pool layer

        up = _Up(target)
        lat = up(forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id))
        ext = forward_batch.extend_seq_lens.to(torch.int64)  # negative: extend lengths
        return lat, ext
