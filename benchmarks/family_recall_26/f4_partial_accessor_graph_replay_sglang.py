import functools

import torch


class MLACudaGraphReplayer:
    """Torch-native MLA decode graph for a backend without FP8 kernels: static bf16 copies per replay."""

    def __init__(self, model_runner, layer_ids):
        pool = model_runner.token_to_kv_pool
        self.read_latent = functools.partial(pool.get_key_buffer)
        self.read_rows = functools.partial(pool.get_mla_kv_buffer, dst_dtype=torch.bfloat16)
        self.layer_ids = layer_ids
        self.static = {}

    def init_forward_metadata_capture_cuda_graph(self, bs):
        for i in self.layer_ids:
            self.static[i] = self.read_latent(i).to(torch.bfloat16)  # negative: capture, setup time

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, loc):
        for i in self.layer_ids:
            self.static[i].copy_(self.read_latent(i).to(torch.bfloat16))  # positive: f4 CL001 whole latent buffer read through a partial of the accessor, every replay

    def gather_rows(self, layer, loc):
        return self.read_rows(layer, loc)  # negative: fused gather + cast of the given rows only
