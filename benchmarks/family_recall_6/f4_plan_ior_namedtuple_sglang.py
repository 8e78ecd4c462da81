"""Plan keyword dicts updated in place with |= and a NamedTuple dtype pair splatted."""
from typing import NamedTuple

import torch


class DtypePair(NamedTuple):
    q: torch.dtype
    kv: torch.dtype


class IorPlanMLABackend:
    def __init__(self, model_runner, wrapper, verify_wrapper):
        self.wrapper = wrapper
        self.verify_wrapper = verify_wrapper
        self.data_type = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype
        self.pair = DtypePair(model_runner.dtype, model_runner.dtype)

    def init_forward_metadata(self, forward_batch):
        kw = dict(
            qo_indptr=forward_batch.qo_indptr,
            kv_indptr=forward_batch.kv_indptr,
            kv_indices=forward_batch.kv_indices,
            kv_len_arr=forward_batch.seq_lens,
            num_heads=16,
            head_dim_ckv=512,
            head_dim_kpe=64,
            page_size=1,
            causal=False,
            sm_scale=0.1,
        )
        kw |= {"q_data_type": self.data_type, "kv_data_type": self.data_type}
        self.wrapper.plan(**kw)  # positive: f4 CL002 kv dtype (merged with |=) is the model dtype
        vkw = dict(kw)
        vkw |= dict(kv_data_type=self.kv_cache_dtype)
        self.verify_wrapper.plan(**vkw)  # negative: the merge overrides kv dtype with the cache dtype
        args = list(kw.values())[:10]
        self.verify_wrapper.plan(*args, *self.pair)  # positive: f4 CL002 the NamedTuple splats the model dtype twice
