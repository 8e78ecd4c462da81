"""FA3-style MLA backend: cast the latent buffer, then split nope/rope views."""

import torch


class FA3StyleMLABackend:
    def __init__(self, model_runner):
        self.kv_lora_rank = model_runner.model_config.kv_lora_rank
        self.qk_rope_head_dim = model_runner.model_config.qk_rope_head_dim
        self.page_size = model_runner.page_size
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        if k is not None and save_kv_cache:
            self.pool.set_mla_kv_buffer(layer, forward_batch.out_cache_loc, k, k[..., self.kv_lora_rank :])
        kv_cache = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f6 CL001 the fa3 MLA decode line: whole latent buffer cast
        kv_cache = kv_cache.view(-1, self.page_size, layer.tp_v_head_num, layer.head_dim)
        k_rope = kv_cache[:, :, :, self.kv_lora_rank :]
        c_kv = kv_cache[:, :, :, : self.kv_lora_rank]
        return torch.ops.sgl_kernel.fwd_mla(q, k_rope, c_kv, forward_batch.seq_lens)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        dcp = getattr(forward_batch, "attn_dcp_metadata", None)
        if dcp is not None:
            kv_local = dcp.dcp_kv_buffer.to(q.dtype)  # negative: per-batch DCP buffer, not the pool
            return torch.ops.sgl_kernel.fwd_mla(q, kv_local, None, forward_batch.seq_lens)
        whole = self.pool.get_key_buffer(layer.layer_id)
        paged = whole.view(-1, self.page_size, layer.tp_v_head_num, layer.head_dim)
        c_kv = paged[..., : self.kv_lora_rank].to(q.dtype)  # positive: f6 CL001 latent part of every page cast (paged view of the whole buffer)
        k_rope = paged[..., self.kv_lora_rank :].view(torch.uint8)  # negative: reinterpret
        return torch.ops.sgl_kernel.fwd_mla(q, k_rope, c_kv, forward_batch.seq_lens)
