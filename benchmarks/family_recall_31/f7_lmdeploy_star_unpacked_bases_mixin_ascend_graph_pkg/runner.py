"""lmdeploy Ascend graph runner whose bases are chosen at import time and star-unpacked in the class header."""
import torch

from . import mixins

_ACL_OP_TAKES_INT8_KV = False  # the paged attention op of this CANN build takes no int8 KV


class AscendGraphRunnerBase:
    def __init__(self, model, cache_engine):
        self.model = model
        self.cache_engine = cache_engine

    def __call__(self, input_ids, attn_metadata):
        if attn_metadata.is_decoding:
            past = self._refresh_kv(self.cache_engine.gpu_cache)
        else:
            past = self._refresh_blocks(self.cache_engine.gpu_cache, attn_metadata.block_offsets)
        q_seqlens = attn_metadata.q_seqlens.to(torch.int32)  # negative: lengths
        return self.graph.replay(input_ids, past, q_seqlens)


_MIXIN = mixins.KeepRefreshMixin if _ACL_OP_TAKES_INT8_KV else mixins.DenseRefreshMixin
_BASES = (_MIXIN, AscendGraphRunnerBase)


class AscendDenseGraphRunner(*_BASES):
    pass
