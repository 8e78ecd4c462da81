"""vLLM EAGLE proposer that reads the target's KV caches through a KVMode chosen from the config."""
from .kv_modes import KVMode


class EagleProposer:
    def __init__(self, vllm_config, runner, model):
        self.runner = runner
        self.model = model
        self.dtype = vllm_config.model_config.dtype
        dense = getattr(vllm_config.speculative_config, "draft_reads_dense_target_kv", True)
        self.mode = KVMode.DENSE if dense else KVMode.BLOCKS

    def propose(self, target_token_ids, target_hidden_states, common_attn_metadata):
        read = self.mode.value
        block_table = common_attn_metadata.block_table_tensor
        target_kv = [read(c, self.dtype, block_table) for c in self.runner.kv_caches]
        hidden = target_hidden_states.to(self.dtype)  # negative: hidden states
        return self.model(target_token_ids, hidden, target_kv)
