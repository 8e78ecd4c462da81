# vLLM v1 FlashInfer MLA-style builder: plan keyword arguments come from a helper; the kv dtype is the model dtype.
import torch


def _plan_dtypes(model_config, cache_config):
    compute = model_config.dtype
    return {"q_data_type": compute, "kv_data_type": compute}


def _native_plan_dtypes(model_config, kv_cache_dtype):
    return {"q_data_type": model_config.dtype, "kv_data_type": kv_cache_dtype}


class FlashInferMLAMetadataBuilder:
    def build(self, common_prefix_len, common_attn_metadata, fast_build=False):
        md = self._base_metadata(common_attn_metadata)
        extra = _plan_dtypes(self.model_config, self.cache_config)
        self._decode_wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens,  # positive: f4 CL002 kv_data_type is the model dtype via **extra
                                  self.num_heads, 512, 64, 64, False, self.scale, **extra)
        if self._native_fp8:
            native = _native_plan_dtypes(self.model_config, self.kv_cache_dtype)
            self._prefill_wrapper.plan(md.qo_indptr, md.kv_indptr, md.kv_indices, md.kv_lens,  # negative: kv dtype is the cache dtype
                                       self.num_heads, 512, 64, 64, True, self.scale, **native)
        return md
