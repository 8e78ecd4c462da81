import torch


class DefaultDtypeUpdater:
    def __init__(self, model_runner, wrapper):
        self.wrapper = wrapper
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.num_heads = model_runner.model_config.num_attention_heads

    def update(self, qo_indptr, kv_indptr, kv_indices, kv_lens, q_data_type=torch.bfloat16, kv_data_type=torch.bfloat16):
        self.wrapper.plan(  # positive: f4 CL002 kv dtype from the bf16 signature default
            qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, False, 0.07,
            q_data_type=q_data_type, kv_data_type=kv_data_type,
        )

    def update_native(self, qo_indptr, kv_indptr, kv_indices, kv_lens):
        self.wrapper.plan(qo_indptr, kv_indptr, kv_indices, kv_lens, self.num_heads, 512, 64, 1, False, 0.07,  # negative: the pool's dtype
                          q_data_type=torch.bfloat16, kv_data_type=self.kv_cache_dtype)


class DefaultDtypeBackend:
    def __init__(self, model_runner, updater):
        self.updater = updater
        self.native = model_runner.server_args.native_fp8_mla

    def init_forward_metadata(self, forward_batch):
        args = (forward_batch.qo_indptr, forward_batch.kv_indptr, forward_batch.kv_indices, forward_batch.seq_lens)
        if self.native:
            self.updater.update_native(*args)
        else:
            self.updater.update(*args)
