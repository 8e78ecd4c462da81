import torch

import f7_lazy_getattr_init_pkg as pkg


class LatentBackend:
    def __init__(self, model_runner):
        cfg = model_runner.model_config
        self.pool = pkg.PagedLatentPool(
            model_runner.max_total_num_tokens, cfg.kv_lora_rank, cfg.qk_rope_head_dim, cfg.num_hidden_layers, "cuda"
        )

    def forward_decode(self, q, k, v, layer, forward_batch):
        lat = self.pool.latent(layer.layer_id).to(q.dtype)  # positive: f7 CL001 whole latent buffer of a lazily re-exported pool class
        nope = self.pool.latent(layer.layer_id)[..., : self.pool.kv_lora_rank].float()  # positive: f7 CL001 every token's latent part
        new = self.pool.rows(layer.layer_id, forward_batch.out_cache_loc).to(q.dtype)  # negative: rows at the step's slots
        raw = self.pool.latent(layer.layer_id).view(torch.uint8)  # negative: reinterpret
        return lat, nope, new
