"""A per-step list filled by slice assignment from the pool's per-layer lists."""
import torch


class SliceAssignBackend:
    def __init__(self, model_runner):
        n = model_runner.model_config.num_hidden_layers
        self.planes = [None] * n
        self.pair = [None, None]
        self.dtype = model_runner.dtype

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        self.planes[:] = pool.k_buffer
        self.pair[0:2] = pool.get_kv_buffer(0)
        self.head = self.planes[0].to(self.dtype)  # positive: f3 CL001 a K layer put in the list by slice assignment
        self.v0 = self.pair[1].half()  # positive: f3 CL001 V half of the pair put in by slice assignment
        lens = [0, 0]
        lens[:] = forward_batch.seq_lens, forward_batch.extend_seq_lens
        self.lens = lens[0].to(torch.int32)  # negative: per-request lengths put in by slice assignment
