"""Generator methods yield pool planes (yield and yield from); the consumer converts them."""
import torch


class HostMirror:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.start_layer = model_runner.start_layer
        self.end_layer = model_runner.end_layer

    def _iter_keys(self):
        for lid in range(self.start_layer, self.end_layer):
            yield self.pool.get_key_buffer(lid)

    def _iter_all(self):
        yield from self.pool.k_buffer
        yield from self.pool.v_buffer

    def _iter_written(self, loc):
        for plane in self.pool.k_buffer:
            yield plane[loc]

    def forward(self, forward_batch, dtype=torch.bfloat16):
        mirrored = [t.to(dtype) for t in self._iter_keys()]  # positive: f3 CL001 each yielded key buffer is whole
        for plane in self._iter_all():
            plane.float()  # positive: f3 CL001 every k and v plane of the pool
        fresh = [r.to(dtype) for r in self._iter_written(forward_batch.out_cache_loc)]  # negative: rows at the step's slots
        gen = (p.view(torch.uint8) for p in self._iter_all())  # negative: reinterpret
        qf = q_like.float() if (q_like := forward_batch.spec_hidden) is not None else None  # negative: per-step hidden states
        return mirrored, fresh, list(gen)
