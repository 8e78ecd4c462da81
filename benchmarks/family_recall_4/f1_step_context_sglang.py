"""init_forward_metadata builds a per-step context holding the pool and the MLA wrapper."""
from dataclasses import dataclass

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


@dataclass
class StepContext:
    pool: object
    wrapper: BatchMLAPagedAttentionWrapper
    kv_indptr: torch.Tensor
    kv_indices: torch.Tensor


class ContextMLABackend:
    def __init__(self, model_runner):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # torch.float8_e4m3fn
        self.num_heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.sm_scale = model_runner.model_config.scaling
        workspace = torch.empty(128 * 1024 * 1024, dtype=torch.uint8, device=model_runner.device)
        self.decode_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.native_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.step = None

    def init_forward_metadata(self, forward_batch):
        bs = forward_batch.batch_size
        qo_indptr = torch.arange(0, bs + 1, dtype=torch.int32, device=forward_batch.seq_lens.device)
        kv_indptr = torch.zeros(bs + 1, dtype=torch.int32, device=qo_indptr.device)
        kv_indptr[1:] = torch.cumsum(forward_batch.seq_lens, dim=0)
        kv_indices = forward_batch.req_to_token_pool.req_to_token[forward_batch.req_pool_indices].flatten()
        kv_lens = forward_batch.seq_lens.to(torch.int32)  # negative: sequence lengths
        self.step = StepContext(forward_batch.token_to_kv_pool, self.decode_wrapper, kv_indptr, kv_indices)
        self.step.wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, self.model_dtype, self.model_dtype)  # positive: f1 CL002 context's wrapper planned with kv in the model dtype over an fp8 pool
        self.native_wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, False, self.sm_scale, self.model_dtype, self.kv_cache_dtype)  # negative: kv declared as the pool dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        arena = self.step.pool.get_key_buffer(layer.layer_id)
        t = arena.to(q.dtype)  # positive: f1 CL001 pool carried by the per-step context
        idx = self.step.kv_indices.to(torch.int64)  # negative: index list
        q_nope, q_rope = q[..., :512], q[..., 512:]
        out = self.step.wrapper.run(q_nope, q_rope, t[..., :512], t[..., 512:])
        return out, idx
