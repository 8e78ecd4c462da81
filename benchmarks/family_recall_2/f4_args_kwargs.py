# *args / **kwargs carrying the dtype or the tensor to a shared conversion helper.
from typing import Any

import torch


class ArgsForwardingBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.device = model_runner.device
        self.cast_kwargs = {"dtype": torch.float16, "non_blocking": True}
        self.move_kwargs = {"device": self.device, "non_blocking": True}

    def _convert(self, t: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
        return t.to(*args, **kwargs)  # note: shared helper; the conversions are attributed to the pool-passing call sites below

    def _all(self, *tensors: torch.Tensor):
        return tuple(x for x in tensors)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb = self.pool.get_key_buffer(layer.layer_id)
        vb = self.pool.get_value_buffer(layer.layer_id)
        k1 = self._convert(kb, torch.bfloat16)  # positive: f4 CL001 dtype passed positionally through *args into .to()
        k2 = self._convert(kb, dtype=q.dtype)  # positive: f4 CL001 dtype passed through **kwargs into .to()
        k3 = self._convert(kb, device=self.device)  # negative: **kwargs carry a device
        q1 = self._convert(q, torch.bfloat16)  # negative: q through the same helper
        v1 = vb.to(**self.cast_kwargs)  # positive: f4 CL001 .to(**kwargs) whose dict holds a dtype
        v2 = vb.to(**self.move_kwargs)  # negative: .to(**kwargs) whose dict holds a device
        cast_args = (torch.float32,)
        v3 = vb.to(*cast_args)  # positive: f4 CL001 .to(*args) with a dtype tuple
        first, second = self._all(kb, vb)
        s32 = second.float()  # positive: f4 CL001 the value pool comes back out of *tensors
        return k1, k2, k3, q1, v1, v2, v3, s32
