"""The plan argument list is built with append/extend and splatted."""

import torch
from flashinfer.mla import BatchMLAPagedAttentionWrapper


class ListPlanBackend:
    def __init__(self, model_runner, workspace):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # fp8 pool
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa3")
        self.heads = model_runner.model_config.num_attention_heads // model_runner.tp_size
        self.scale = model_runner.model_config.scaling
        self.pool = model_runner.token_to_kv_pool

    def _geometry(self, m):
        args = [m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens]
        args.extend([self.heads, 512, 64, 1])
        args.append(False)
        args.append(self.scale)
        return args

    def init_forward_metadata(self, forward_batch):
        args = self._geometry(forward_batch.mla_meta)
        args.extend([self.dtype, self.dtype])
        self.wrapper.plan(*args)  # positive: f4 CL002 list extended with the model dtype twice, splatted into plan

    def init_forward_metadata_fp8(self, forward_batch):
        args = self._geometry(forward_batch.mla_meta)
        args += [self.dtype, self.kv_cache_dtype]
        self.wrapper.plan(*args)  # negative: kv dtype is the pool's dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ckv = self.pool.get_key_buffer(layer.layer_id)
        ckv8 = ckv.view(torch.float8_e4m3fn)  # negative: view(dtype) reinterpret
        q_nope, q_pe = q.split([512, 64], dim=-1)
        return self.wrapper.run(q_nope, q_pe, ckv8[..., :512], ckv8[..., 512:])
