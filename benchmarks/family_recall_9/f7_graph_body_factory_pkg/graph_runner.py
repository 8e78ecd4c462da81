import torch

from .bodies import make_lens_body, make_value_body


class BodyGraphRunner:
    def __init__(self, model_runner, layer_ids):
        pool = model_runner.token_to_kv_pool
        self.seq_lens = torch.zeros(256, dtype=torch.int64, device="cuda")
        self.bodies = [make_value_body(pool, i, model_runner.dtype) for i in layer_ids]
        self.lens_body = make_lens_body(self.seq_lens)

    def replay(self, forward_batch, skip_attn_backend_init=False, pp_proxy_tensors=None):
        outs = [b() for b in self.bodies]
        return outs, self.lens_body()
