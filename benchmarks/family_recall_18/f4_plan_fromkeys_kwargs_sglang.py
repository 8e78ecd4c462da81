"""sglang-style paged prefill updater whose plan keywords are built once with dict.fromkeys."""
import torch


class FlashInferMLAIndicesUpdaterPrefill:
    def __init__(self, model_runner, num_local_heads, kv_lora_rank, qk_rope_head_dim, scaling):
        self.num_local_heads = num_local_heads
        self.kv_lora_rank = kv_lora_rank
        self.qk_rope_head_dim = qk_rope_head_dim
        self.scaling = scaling
        self._plan_kwargs = dict.fromkeys(("q_data_type", "kv_data_type"), model_runner.dtype)
        self._draft_kwargs = dict(q_data_type=model_runner.dtype, kv_data_type=model_runner.kv_cache_dtype)

    def update(self, qo_indptr, kv_indptr, kv_indices, kv_lens, wrapper, spec_draft=False):
        args = (qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_local_heads, self.kv_lora_rank, self.qk_rope_head_dim, 1, True, self.scaling)
        if spec_draft:
            wrapper.plan(*args, **self._draft_kwargs)  # negative: kv dtype is the pool's dtype
        else:
            wrapper.plan(*args, **self._plan_kwargs)  # positive: f4 CL002 both dtypes set to the model dtype by dict.fromkeys


class FlashInferMLABackend:
    def __init__(self, updater, prefill_wrapper_paged):
        self.updater = updater
        self.prefill_wrapper_paged = prefill_wrapper_paged

    def init_forward_metadata(self, forward_batch):
        m = forward_batch.mla_indices
        self.updater.update(m.qo_indptr, m.kv_indptr, m.kv_indices, m.kv_lens, self.prefill_wrapper_paged, forward_batch.spec_draft)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        k_buf = k_buf.to(q.dtype) if not forward_batch.spec_draft else k_buf  # positive: f4 CL001 whole latent layer widened to match the plan
        return self.prefill_wrapper_paged.run(q, k_buf)
