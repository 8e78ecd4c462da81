"""A replay helper importing the re-export by absolute package path."""

import torch

from f7_reexport_accessor_pkg import plane_of


class ReplayWarmup:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.shadow = {}

    def init_forward_metadata(self, forward_batch):
        for lid in forward_batch.warm_layers:
            p = plane_of(self.pool, lid)
            self.shadow[lid] = p.to(torch.bfloat16)  # positive: f7 CL001 whole key buffer via the absolute import of the re-export
        self.bs = torch.tensor(forward_batch.batch_size).to(torch.int32)  # negative: scalar batch size
