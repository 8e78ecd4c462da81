import torch


class MTPProposer:
    """v1 MTP proposer: the MTP layer reads the last target layer's latent cache."""

    def __init__(self, vllm_config, device, runner):
        self.runner = runner
        self.device = device
        self.draft_dtype = vllm_config.model_config.dtype
        self.target_layer_name = None
        self.draft_cache = None

    def load_model(self, target_model):
        self.target_layer_name = sorted(self.runner.kv_caches_by_name)[-1]
        cache = self.runner.kv_caches_by_name[self.target_layer_name]
        self.draft_cache = torch.empty_like(cache, dtype=self.draft_dtype)  # negative: allocation at load time

    def propose(self, target_token_ids, target_positions, target_hidden_states, next_token_ids, common_attn_metadata, sampling_metadata):
        target = self.runner.kv_caches_by_name[self.target_layer_name]
        self.draft_cache.copy_(target.to(self.draft_dtype))  # positive: f6 CL001 whole target latent cache copied into the draft's dtype every propose
        hidden = target_hidden_states.to(self.draft_dtype)  # negative: hidden states
        tail = target[common_attn_metadata.block_table_tensor[:, -1]].to(self.draft_dtype)  # negative: last blocks of each request
        return self._run(hidden, next_token_ids, tail)

    def _run(self, *args):
        return args
