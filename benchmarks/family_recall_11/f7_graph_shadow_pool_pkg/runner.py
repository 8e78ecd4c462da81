import torch

from .shadow import ShadowSet


class GraphRunner:
    def __init__(self, model_runner):
        self.shadows = ShadowSet(model_runner.token_to_kv_pool, model_runner.dtype)
        self.graphs = {}

    def replay(self, forward_batch, skip_attn_backend_init=False):
        bs = forward_batch.batch_size
        self.shadows.refresh(range(len(self.shadows.layers)))
        seq = forward_batch.seq_lens[:bs].to(torch.int32)  # negative: lengths
        self.graphs[bs].replay()
        return seq
