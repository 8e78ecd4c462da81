"""CL002: plan keywords merged with collections.ChainMap, and a dtype pair from itertools.repeat."""
import collections
import itertools

from flashinfer.mla import BatchMLAPagedAttentionWrapper


class ChainMapPlanBackend:
    def __init__(self, model_runner, workspace):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype  # FP8 pool
        self.num_heads = model_runner.model_config.num_attention_heads
        self.wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.verify_wrapper = BatchMLAPagedAttentionWrapper(workspace, backend="fa2")
        self.defaults = {"q_data_type": self.dtype, "head_dim_ckv": 512, "head_dim_kpe": 64, "page_size": 1}

    def init_forward_metadata(self, forward_batch):
        md = forward_batch.plan_metadata
        self.wrapper.plan(metadata=md, num_heads=self.num_heads, **collections.ChainMap({"kv_data_type": self.dtype}, self.defaults))  # positive: f4 CL002 kv dtype (model dtype) from a ChainMap
        fp8 = collections.ChainMap({"kv_data_type": self.kv_cache_dtype}, {"kv_data_type": self.dtype}, self.defaults)
        self.verify_wrapper.plan(metadata=md, num_heads=self.num_heads, **fp8)  # negative: the first map gives the FP8 pool dtype

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu=None):
        i = self.graph_indices
        self.wrapper.plan(i.qo_indptr, i.kv_indptr, i.kv_indices, seq_lens, self.num_heads, 512, 64, 1, False, i.sm_scale, *itertools.repeat(self.dtype, 2))  # positive: f4 CL002 both dtypes from itertools.repeat(model dtype, 2)
