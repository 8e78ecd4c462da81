# A vLLM-style MLA impl whose common base lives in .common.
import torch

from .common import LatentCommonImpl as Base


class LatentTritonImpl(Base):
    def forward_mqa(self, q, kv_c_and_k_pe_cache: torch.Tensor, attn_metadata, layer):
        tokens = self._as_tokens(kv_c_and_k_pe_cache).to(torch.bfloat16)  # positive: f7 CL001 base helper from .common views the whole MLA cache
        latent = super()._latent_only(kv_c_and_k_pe_cache).float()  # positive: f7 CL001 super() helper slices the last dim of the whole cache
        blocks = kv_c_and_k_pe_cache[attn_metadata.decode.block_table].to(torch.bfloat16)  # negative: blocks of the batch
        qq = q.to(torch.bfloat16)  # negative: q
        return tokens, latent, blocks, qq
