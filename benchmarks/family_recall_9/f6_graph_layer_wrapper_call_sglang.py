"""Per-layer replay wrappers in a CUDA-graph runner: buffers taken at capture, converted in __call__."""
import torch


class _LayerReplay:
    def __init__(self, buf, dtype, lens):
        self.buf = buf
        self.dtype = dtype
        self.lens = lens

    def __call__(self):
        dense = self.buf.to(self.dtype)  # positive: f6 CL001 whole key buffer converted each time a wrapper is called
        lens = self.lens.to(torch.int32)  # negative: static per-graph lengths
        return dense, lens


class WrapperGraphRunner:
    def __init__(self, model_runner, max_bs=256):
        pool = model_runner.token_to_kv_pool
        self.seq_lens = torch.zeros(max_bs, dtype=torch.int64, device="cuda")
        n = model_runner.model_config.num_hidden_layers
        self.wrappers = [_LayerReplay(pool.get_key_buffer(i), model_runner.dtype, self.seq_lens) for i in range(n)]
        self.init_copy = pool.get_key_buffer(0).to(model_runner.dtype)  # negative: one-time, in __init__

    def replay(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        self.seq_lens[: forward_batch.batch_size].copy_(forward_batch.seq_lens)
        return [w() for w in self.wrappers]
