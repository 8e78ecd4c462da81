"""lmdeploy CUDA graph runner: the subclass builds its per-replay refresh with functools.partialmethod over the base's dtype-taking helper."""
import functools

import torch

from lmdeploy.pytorch.backends.cuda.graph_runner import CUDAGraphRunner


class _RefreshingGraphRunner(CUDAGraphRunner):
    def _refresh_as(self, dtype, past_key_values):
        for (k, v), (sk, sv) in zip(past_key_values, self.static_kv):
            sk.copy_(k.to(dtype))  # positive: f2 CL001 whole key cache, per replay through the subclass's partialmethod
            sv.copy_(v.to(dtype))  # positive: f2 CL001 whole value cache

    def _refresh_tail(self, past_key_values, blocks):
        for (k, v), (sk, sv) in zip(past_key_values, self.static_kv):
            sk[blocks].copy_(k[blocks].to(sk.dtype))  # negative: blocks only

    def capture(self, **kwargs):
        pkv = kwargs["past_key_values"]
        self.static_kv = [(torch.empty_like(k, dtype=torch.float16), torch.empty_like(v, dtype=torch.float16)) for k, v in pkv]  # negative: allocation at capture
        return super().capture(**kwargs)

    def __call__(self, **kwargs):
        self._refresh(kwargs["past_key_values"])
        return super().__call__(**kwargs)


class Fp16StaticGraphRunner(_RefreshingGraphRunner):
    _refresh = functools.partialmethod(_RefreshingGraphRunner._refresh_as, torch.float16)
