"""vLLM FlashInfer MLA builder: the plan dtypes come out of a generator (yield from) unpacked into two names."""
import torch


def _dtype_pair(dtype):
    yield from (dtype, dtype)


def _native_pair(q_dtype, kv_dtype):
    yield q_dtype
    yield kv_dtype


class FlashInferMLAMetadataBuilder:
    def __init__(self, kv_cache_spec, layer_names, vllm_config, device, decode_wrapper, prefill_wrapper):
        self.model_dtype = vllm_config.model_config.dtype
        self.kv_cache_dtype = kv_cache_spec.dtype
        self.page_size = kv_cache_spec.block_size
        self.decode_wrapper = decode_wrapper
        self.prefill_wrapper = prefill_wrapper

    def build(self, common_prefix_len, m, fast_build=False):
        q_dt, kv_dt = _dtype_pair(self.model_dtype)
        self.decode_wrapper.plan(  # positive: f4 CL002 both dtypes the model dtype, from the generator, while the cache is FP8
            m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, m.num_heads, 512, 64, self.page_size, False, m.sm_scale, q_dt, kv_dt,
        )
        pq, pkv = _native_pair(self.model_dtype, self.kv_cache_dtype)
        self.prefill_wrapper.plan(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, m.num_heads, 512, 64, self.page_size, True, m.sm_scale, pq, pkv)  # negative: kv dtype is the cache's
        return m


class FlashInferMLAImpl:
    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        kv = kv_c_and_k_pe_cache.to(q.dtype)  # positive: f4 CL001 whole latent cache for the BF16 plan
        return self.decode_wrapper.run(q[..., :512], q[..., 512:], kv[..., :512], kv[..., 512:])
