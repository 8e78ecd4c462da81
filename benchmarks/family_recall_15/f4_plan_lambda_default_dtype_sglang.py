class FlashInferMLAPrefillBackend:
    def __init__(self, model_runner):
        self.model_runner = model_runner
        self.prefill_wrapper_paged = model_runner.make_mla_wrapper()
        self.draft_wrapper = model_runner.make_mla_wrapper()

    def init_forward_metadata(self, forward_batch):
        fb = forward_batch
        do_plan = lambda w, dt=self.model_runner.dtype: w.plan(fb.qo_indptr, fb.kv_indptr, fb.kv_indices, fb.kv_lens, 16, 512, 64, 1, True, 0.1, dt, dt)  # positive: f4 CL002 default argument binds the model dtype for both slots
        do_plan(self.prefill_wrapper_paged)
        if fb.spec_info is not None:
            kv_dt = self.model_runner.kv_cache_dtype
            self.draft_wrapper.plan(  # negative: pool dtype for KV
                fb.qo_indptr, fb.kv_indptr, fb.kv_indices, fb.kv_lens,
                16, 512, 64, 1, False, 0.1, self.model_runner.dtype, kv_dt,
            )

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens):
        return None

    def forward_extend(self, q, k, v, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return self.prefill_wrapper_paged.run(q, pool.get_key_buffer(layer.layer_id))
