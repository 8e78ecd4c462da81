import torch


class NgramVerifyBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype
        self.graph_bufs = {}

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        if forward_mode.is_target_verify():
            self.graph_bufs[bs] = [self.pool.get_key_buffer(i).to(self.dtype) for i in range(self.pool.layer_num)]  # negative: capture, one time

    def init_forward_metadata_replay_cuda_graph(self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu):
        if forward_mode.is_target_verify():
            for i, dst in enumerate(self.graph_bufs[bs]):
                dst[:] = self.pool.get_key_buffer(i)  # positive: f6 CL001 slice assignment of a whole fp8 layer into the bf16 graph buffer at replay
            mask = spec_info.custom_mask.to(torch.bool)  # negative: the verify tree mask
            return mask
        draft = spec_info.draft_token.to(torch.int64)  # negative: draft tokens
        return draft
