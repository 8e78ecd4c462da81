import torch


class SharedMLABackend:
    pool = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)  # positive: f7 CL001 draft or target pool set by worker.py
        nope = self.pool.get_key_buffer(layer.layer_id)[..., :512].half()  # positive: f7 CL001 every token's latent of that pool
        draft = forward_batch.spec_info.draft_token.to(torch.int64)  # negative: draft tokens
        return lat, nope, draft
