"""npu (Ascend) style: the pool is stored as an attribute of a module function object and read from there."""
import torch
import torch_npu


def latent_of(layer_id):
    return latent_of.pool.get_key_buffer(layer_id)


def lens_of(req_idx):
    return lens_of.table[req_idx]


class AscendFnAttrBackend:
    def __init__(self, model_runner):
        latent_of.pool = model_runner.token_to_kv_pool
        lens_of.table = model_runner.req_to_token_pool.req_to_token
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        t = latent_of(layer.layer_id)
        dense = t.to(self.dtype)  # positive: f1 CL001 key buffer via a function's `.pool` attribute
        direct = latent_of.pool.get_value_buffer(layer.layer_id).to(self.dtype)  # positive: f1 CL001 value buffer read off the function attribute
        rows = lens_of(forward_batch.req_pool_indices).to(torch.int64)  # negative: token table rows
        return torch_npu.npu_fused_infer_attention_score(q, dense, direct, actual_seq_lengths_kv=rows)
