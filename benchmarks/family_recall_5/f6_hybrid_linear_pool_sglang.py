"""Hybrid linear-attention model: full-attention KV planes next to small mamba states."""

import torch


class HybridLinearKVPool:
    def __init__(self, size, full_layer_ids, head_num, head_dim, dtype, device):
        self.dtype = dtype
        self.full_map = {lid: i for i, lid in enumerate(full_layer_ids)}
        self.attn_k = [torch.zeros(size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in full_layer_ids]
        self.attn_v = [torch.zeros(size + 1, head_num, head_dim, dtype=dtype, device=device) for _ in full_layer_ids]

    def attn_kv(self, layer_id):
        i = self.full_map[layer_id]
        return self.attn_k[i], self.attn_v[i]

    def attn_k_dense(self, layer_id, dtype):
        return self.attn_k[self.full_map[layer_id]].to(dtype)  # positive: f6 CL004 hybrid pool accessor converts the whole attention key plane


class MambaStatePool:
    def __init__(self, max_reqs, conv_dim, state_dim, device):
        self.conv = torch.zeros(max_reqs, conv_dim, 4, dtype=torch.bfloat16, device=device)
        self.ssm = torch.zeros(max_reqs, state_dim, dtype=torch.float32, device=device)

    def state_of(self, req_idx):
        return self.conv[req_idx], self.ssm[req_idx]


class HybridBackend:
    def __init__(self, model_runner):
        self.kv = model_runner.token_to_kv_pool  # HybridLinearKVPool, fp8_e4m3 planes
        self.states = model_runner.req_to_token_pool.mamba_pool  # MambaStatePool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ak, av = self.kv.attn_kv(layer.layer_id)
        akd = ak.to(self.dtype)  # positive: f6 CL001 full-attention key plane through the hybrid pool's attn_kv accessor
        avd = av.to(self.dtype)  # positive: f6 CL001 full-attention value plane
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.decode_attention(q, akd, avd, o, forward_batch.seq_lens)
        return o

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kd = self.kv.attn_k_dense(layer.layer_id, self.dtype)
        o = torch.empty_like(q)
        torch.ops.sgl_kernel.extend_attention(q, kd, o, forward_batch.extend_seq_lens)
        return o

    def forward_linear(self, x, layer, forward_batch):
        conv, ssm = self.states.state_of(forward_batch.req_pool_indices)
        c32 = conv.to(torch.float32)  # negative: per-request conv states of this batch
        s16 = ssm.to(self.dtype)  # negative: per-request ssm states of this batch
        return torch.ops.sgl_kernel.mamba_step(x, c32, s16)
