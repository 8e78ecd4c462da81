import abc

import torch


class MLADecodeBase(abc.ABC):
    @property
    @abc.abstractmethod
    def compute_dtype(self):
        """dtype the kernel wants the latent cache in, or None for native FP8."""

    def forward_decode(self, q, k, v, layer, forward_batch):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if self.compute_dtype is not None:
            kv = kv.to(self.compute_dtype)  # positive: f2 CL001 Sm80MLADecode.compute_dtype is bfloat16
        return self._run(q, kv, forward_batch)

    def _run(self, q, kv, forward_batch):
        return q


class Sm80MLADecode(MLADecodeBase):
    @property
    def compute_dtype(self):
        return torch.bfloat16


class Sm90NativeMLADecode(MLADecodeBase):
    @property
    def compute_dtype(self):
        return None

    def forward_extend(self, q, k, v, layer, forward_batch):
        rows = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]
        return self._run(q, rows.to(q.dtype), forward_batch)  # negative: gathered rows
