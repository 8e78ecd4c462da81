# sglang Ascend NPU, DeepSeek MTP target verify replayed in an ACL graph: the NPU MLA verify op takes no
# FP8 latent, so the replay hook widens each layer's latent buffer into the graph's static input.
import torch


class AscendMLAGraphVerifyBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.model_dtype = model_runner.dtype
        self.static_latent = {}

    def init_forward_metadata_capture_cuda_graph(self, bs, num_tokens, req_pool_indices, seq_lens, encoder_lens, forward_mode, spec_info):
        for lid in range(self.pool.start_layer, self.pool.end_layer):
            self.static_latent[lid] = torch.empty_like(self.pool.get_key_buffer(lid), dtype=self.model_dtype)  # negative: allocation at capture

    def init_forward_metadata_replay_cuda_graph(
        self, bs, req_pool_indices, seq_lens, seq_lens_sum, encoder_lens, forward_mode, spec_info, seq_lens_cpu
    ):
        if not forward_mode.is_target_verify():
            return
        for lid, dst in self.static_latent.items():
            dst.copy_(self.pool.get_key_buffer(lid).to(self.model_dtype))  # positive: f6 CL001 whole per-layer latent buffer, each replay of the verify graph
        self.draft_tokens = spec_info.draft_token.to(torch.int32)  # negative: draft token ids
        self.seq_lens_npu = seq_lens.to(torch.int32)  # negative: lengths
