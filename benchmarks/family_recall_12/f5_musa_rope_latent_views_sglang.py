import torch


class MusaLatentViews:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.kv_lora_rank = 512
        self.rope_dim = 64

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        lat, rope = buf.tensor_split([self.kv_lora_rank], dim=-1)
        lat16 = lat.squeeze(1).to(self.dtype)  # positive: f5 CL001 latent part from tensor_split with an index list
        rope16 = torch.Tensor.contiguous(rope).to(self.dtype)  # positive: f5 CL001 unbound contiguous of the rope part
        q_nope, q_pe = q.tensor_split([self.kv_lora_rank], dim=-1)
        qp = q_pe.to(self.dtype)  # negative: query rope part
        return lat16, rope16, qp
