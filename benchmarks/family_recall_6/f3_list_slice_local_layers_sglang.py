"""Python list slices of the per-layer buffer lists (each element still a whole layer)."""
import torch


class PipelineStageDumper:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.lo = model_runner.start_layer
        self.hi = model_runner.end_layer

    def forward(self, forward_batch, dtype=torch.bfloat16):
        local = self.pool.k_buffer[: self.hi - self.lo]
        k0 = local[0].to(dtype)  # positive: f3 CL001 an element of a list slice is a whole layer buffer
        tail = self.pool.v_buffer[1:]
        vs = [t.float() for t in tail]  # positive: f3 CL001 every element is a whole value buffer
        every_other = self.pool.k_buffer[::2]
        eo = every_other[-1].half()  # positive: f3 CL001 still a whole layer buffer
        tok = self.pool.k_buffer[0][: forward_batch.seq_lens_sum].to(dtype)  # negative: token window of one layer
        first_blocks = [t[:64].to(dtype) for t in local]  # negative: windows of each layer
        return k0, vs, eo, tok
