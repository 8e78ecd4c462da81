import functools

import torch


class FlashInferTuringMetadataBuilder:
    """SM75 build: FlashInfer has no FP8-KV kernels here, both wrappers plan in the model dtype."""

    def __init__(self, kv_cache_spec, vllm_config, device):
        self.q_dtype = vllm_config.model_config.dtype
        self.cache_dtype = kv_cache_spec.dtype
        self.sm = torch.cuda.get_device_capability(device)

    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        kv_dtype = self.q_dtype if self.sm < (8, 9) else self.cache_dtype
        plans = [
            functools.partial(w.plan, q_data_type=self.q_dtype, kv_data_type=kv_dtype)
            for w in (self._prefill_wrapper, self._decode_wrapper)
        ]
        for plan in plans:
            plan(  # positive: f4 CL002 partials bind kv_data_type = q dtype on SM75, called per build
                common_attn_metadata.paged_kv_indptr,
                common_attn_metadata.paged_kv_indices,
                common_attn_metadata.paged_kv_last_page_len,
                self.num_qo_heads,
                self.num_kv_heads,
                self.head_dim,
                self.page_size,
            )
        return common_attn_metadata.seq_lens.to(torch.int32)  # negative: lengths

    def build_for_cudagraph_capture(self, common_attn_metadata):
        self._decode_wrapper.plan(common_attn_metadata.paged_kv_indptr, q_data_type=self.q_dtype, kv_data_type=self.cache_dtype)  # negative: plans the cache dtype
