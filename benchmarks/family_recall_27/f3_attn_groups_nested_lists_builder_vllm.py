import torch
from vllm.v1.kv_cache_interface import MambaSpec


class NoFP8DecodeMetadataBuilder:
    """Hybrid model: attn_groups[kv_cache_group_id] is a list of groups, each with layer names."""

    def __init__(self, runner, compute_dtype):
        self.runner = runner
        self.compute_dtype = compute_dtype

    def build(self, common_prefix_len, common_attn_metadata):
        ctx = self.runner.compilation_config.static_forward_context
        dense = {}
        for groups in self.runner.attn_groups:
            for group in groups:
                if isinstance(group.kv_cache_spec, MambaSpec):
                    for name in group.layer_names:
                        conv, ssm = ctx[name].kv_cache[0]
                        dense[name] = (conv.to(self.compute_dtype), ssm)  # negative: mamba conv state, not KV
                    continue
                for name in group.layer_names:
                    dense[name] = ctx[name].kv_cache[0].to(self.compute_dtype)  # positive: f3 CL001 whole attention layer cache through the nested group lists
        bt = common_attn_metadata.block_table_tensor.to(torch.int32)  # negative: block table
        return {"dense_kv": dense, "block_table": bt, "seq_lens": common_attn_metadata.seq_lens}
