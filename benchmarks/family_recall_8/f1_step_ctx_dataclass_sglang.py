from dataclasses import dataclass, field

import torch


@dataclass
class PoolRef:
    kv: list
    scales: list = field(default_factory=list)


@dataclass
class AttnCtx:
    pool_ref: PoolRef
    bs: int = 0


class CtxBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def init_forward_metadata(self, forward_batch):
        forward_batch.attn_ctx = AttnCtx(PoolRef(self.pool.kv_buffer, self.pool.scale_buffer), forward_batch.batch_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ctx = forward_batch.attn_ctx
        lat = ctx.pool_ref.kv[layer.layer_id].to(q.dtype)  # positive: f1 CL001 pool list stored on a per-step context dataclass
        sc = ctx.pool_ref.scales[layer.layer_id].float()  # negative: scales
        n = torch.tensor(ctx.bs, dtype=torch.int32)  # negative: batch size
        return lat, sc, n
