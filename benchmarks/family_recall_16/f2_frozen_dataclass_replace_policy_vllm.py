from dataclasses import dataclass, replace

import torch


@dataclass(frozen=True)
class ReadPolicy:
    compute_dtype: torch.dtype | None = None
    gather_only: bool = True


class MLAImplBase:
    policy = ReadPolicy()

    def forward_mqa(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        policy = self.effective_policy(attn_metadata)
        if policy.gather_only:
            rows = kv_c_and_k_pe_cache[attn_metadata.block_table[:, :4]]
            return rows.to(q.dtype)  # negative: first pages of each request
        return kv_c_and_k_pe_cache.to(policy.compute_dtype)  # positive: f2 CL001 whole latent cache under the subclass policy

    def effective_policy(self, attn_metadata):
        return self.policy


class TritonNoFp8MLAImpl(MLAImplBase):
    def effective_policy(self, attn_metadata):
        return replace(self.policy, compute_dtype=torch.bfloat16, gather_only=False)
