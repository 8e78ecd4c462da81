import torch


class SpecMLAPlanner:
    def __init__(self, model_runner, verify_wrapper, draft_wrapper):
        self.model_dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.verify_wrapper = verify_wrapper
        self.draft_wrapper = draft_wrapper
        self.heads = model_runner.model_config.num_attention_heads

    def init_forward_metadata(self, forward_batch):
        qo, kv, idx, lens = self._indices(forward_batch)
        if forward_batch.forward_mode.is_target_verify():
            self.verify_wrapper.plan(qo, kv, idx, lens, self.heads, 512, 64, 1, True, 0.1, self.model_dtype, self.model_dtype)  # positive: f4 CL002 target-verify plan declares the fp8 pool as the model dtype
        else:
            self.draft_wrapper.plan(qo, kv, idx, lens, self.heads, 512, 64, 1, False, 0.1, self.model_dtype, self.kv_cache_dtype)  # negative: draft decode plan uses the pool's dtype
        self.lens32 = lens.to(torch.int32)  # negative: lengths

    def _indices(self, forward_batch):
        return forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices, forward_batch.seq_lens

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return self.verify_wrapper.run(q, kv.to(q.dtype))  # positive: f4 CL001 whole latent buffer converted for the bf16 plan
