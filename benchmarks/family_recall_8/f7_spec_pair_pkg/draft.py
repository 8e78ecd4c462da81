import torch

from .target import TargetRunner


class DraftBackend:
    def __init__(self, target: TargetRunner):
        self.target = target

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        shared = self.target.token_to_kv_pool.get_key_buffer(layer.layer_id)
        up = shared.to(q.dtype)  # positive: f7 CL001 draft backend converts the target pool's layer (target.py)
        up2 = shared.unsqueeze(0).float()  # positive: f7 CL001 unsqueezed whole layer
        rows = shared[forward_batch.spec_info.accept_index].to(q.dtype)  # negative: accepted rows
        return up, up2, rows
