"""Per-layer view records whose __post_init__ derives tensors from the pool."""
from dataclasses import dataclass, field
from typing import Any

import torch


@dataclass
class LayerView:
    pool: Any
    layer_id: int
    latent: torch.Tensor = field(init=False)
    rope_scale: torch.Tensor = field(init=False)

    def __post_init__(self):
        self.latent = self.pool.get_key_buffer(self.layer_id)
        self.rope_scale = torch.ones(1, device="cuda")


class CuteMLABackend:
    def __init__(self, model_runner):
        pool = model_runner.token_to_kv_pool
        n = model_runner.model_config.num_hidden_layers
        self.views = [LayerView(pool, i) for i in range(n)]
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.warm = self.views[0].latent.to(torch.bfloat16)  # negative: __init__-time conversion

    def forward_decode(self, q, k, v, layer, forward_batch):
        view = self.views[layer.layer_id]
        dense = view.latent.to(q.dtype)  # positive: f1 CL001 the view's latent is the whole per-layer pool buffer
        nope = view.latent[:, :, : self.kv_lora_rank].to(q.dtype)  # positive: f1 CL001 every token's latent part
        s = view.rope_scale.float()  # negative: a one-element scale
        rows = view.latent[forward_batch.out_cache_loc].to(q.dtype)  # negative: gather-then-cast
        return dense, nope, s
