from dataclasses import asdict, dataclass

import torch


@dataclass
class PlanDtypes:
    q_data_type: torch.dtype
    kv_data_type: torch.dtype


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, vllm_config, device, decode_wrapper):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.decode_wrapper = decode_wrapper
        self.num_heads = vllm_config.model_config.get_num_attention_heads(vllm_config.parallel_config)

    def _dtypes(self):
        return PlanDtypes(self.model_dtype, self.model_dtype)

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        m = common_attn_metadata
        self.decode_wrapper.plan(  # positive: f4 CL002 kv dtype = model dtype via **asdict(...) of a dtype record
            m.query_start_loc, m.paged_kv_indptr, m.paged_kv_indices, m.seq_lens,
            self.num_heads, 512, 64, m.block_size, False, m.sm_scale,
            **asdict(self._dtypes()),
        )
        return m


class FlashInferMLAImplLite:
    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        cache = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f4 CL001 whole cache cast to agree with that plan
        tables = attn_metadata.block_table.to(torch.int32)  # negative: page table
        return cache, tables
