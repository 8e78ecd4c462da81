import torch


class FlashInferMLAAttnBackend:
    def __init__(self, model_runner):
        self.q_dtype = model_runner.dtype
        self.kv_dtype = model_runner.kv_cache_dtype
        self.base_kwargs = dict(causal=False, sm_scale=model_runner.model_config.scaling)

    def _dtype_kwargs(self):
        return {"q_data_type": self.q_dtype, "kv_data_type": self.q_dtype}

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, spec_info):
        wrapper = self.cuda_graph_decode_wrappers[bs]
        kwargs = self.base_kwargs | self._dtype_kwargs()
        wrapper.plan(  # positive: f4 CL002 both plan dtypes arrive through a dict union of keyword dicts, kv dtype = q dtype
            qo_indptr=self.qo_indptr[: bs + 1],
            kv_indptr=self.kv_indptr[: bs + 1],
            kv_indices=self.kv_indices,
            kv_len_arr=seq_lens.to(torch.int32),  # negative: lengths
            num_heads=self.num_local_heads,
            head_dim_ckv=self.kv_lora_rank,
            head_dim_kpe=self.qk_rope_head_dim,
            page_size=1,
            **kwargs,
        )

    def init_forward_metadata_native(self, wrapper, bs, seq_lens):
        kwargs = self.base_kwargs | {"q_data_type": self.q_dtype, "kv_data_type": self.kv_dtype}
        wrapper.plan(seq_lens=seq_lens, **kwargs)  # negative: plans the pool's dtype (native FP8 read)
