import torch


class ChunkedMLAPrefill:
    def __init__(self, model_runner, ragged_wrapper, paged_wrapper):
        self.q_data_type = model_runner.dtype
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.ragged = ragged_wrapper
        self.paged = paged_wrapper
        self.num_heads = model_runner.model_config.num_attention_heads

    def init_forward_metadata(self, forward_batch):
        prefix = forward_batch.extend_prefix_lens
        qo_indptr = torch.nn.functional.pad(torch.cumsum(forward_batch.extend_seq_lens, 0), (1, 0))
        if forward_batch.extend_prefix_lens_cpu and sum(forward_batch.extend_prefix_lens_cpu) == 0:
            self.ragged.plan(  # negative: ragged prefill over the batch's own k/v
                qo_indptr, qo_indptr, self.num_heads, self.num_heads, 192,
                head_dim_vo=128, q_data_type=self.q_data_type,
            )
            return
        kv_indptr = torch.nn.functional.pad(torch.cumsum(forward_batch.seq_lens, 0), (1, 0))
        self.paged.plan(  # positive: f4 CL002 paged MLA prefill plans kv with the model dtype
            qo_indptr, kv_indptr, forward_batch.kv_indices, forward_batch.seq_lens.to(torch.int32),
            self.num_heads, 512, 64, 1, True, 0.1352,
            self.q_data_type, self.data_type,
        )
        self.prefix_i32 = prefix.to(torch.int32)  # negative: lengths
