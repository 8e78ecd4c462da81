import abc

import torch


class DraftAttnBackendBase(abc.ABC):
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    @abc.abstractmethod
    def _kv_pool(self, forward_batch):
        """The pool this draft model reads its shared layers from."""

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = self._kv_pool(forward_batch)
        k_buf = pool.get_key_buffer(layer.layer_id)
        if k_buf.dtype != q.dtype:
            k_buf = k_buf.to(q.dtype)  # positive: f2 CL001 whole target layer, pool supplied by the EAGLE3 subclass
        v_new = pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc].to(q.dtype)  # negative: new-token rows
        hidden = forward_batch.spec_info.hidden_states.to(self.dtype)  # negative: hidden states
        return self._attend(q, k_buf, v_new, hidden, layer, forward_batch)


class Eagle3DraftAttnBackend(DraftAttnBackendBase):
    def __init__(self, model_runner, target_worker):
        super().__init__(model_runner)
        self.target_worker = target_worker

    def _kv_pool(self, forward_batch):
        return self.target_worker.model_runner.token_to_kv_pool
