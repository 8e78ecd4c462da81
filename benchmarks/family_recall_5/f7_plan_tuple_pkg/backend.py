"""FlashInfer MLA backend (FP8 pool) that delegates planning to planner.py."""

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper

from .planner import DecodePlanner, NativeDecodePlanner


class TuplePlanBackend:
    def __init__(self, model_runner, workspace, native=False):
        wrapper = BatchMLAPagedAttentionWrapper(workspace)
        cls = NativeDecodePlanner if native else DecodePlanner
        self.planner = cls(model_runner, wrapper)
        self.pool = model_runner.token_to_kv_pool  # fp8_e4m3 MLA pool

    def init_forward_metadata(self, forward_batch):
        self.planner.update(forward_batch.mla_meta)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ckv = self.pool.get_key_buffer(layer.layer_id)
        ckv16 = ckv.to(q.dtype)  # positive: f7 CL001 whole latent buffer cast to match the bf16 plan
        q_nope, q_pe = q.split([512, 64], dim=-1)
        return self.planner.wrapper.run(q_nope, q_pe, ckv16[..., :512], ckv16[..., 512:])
