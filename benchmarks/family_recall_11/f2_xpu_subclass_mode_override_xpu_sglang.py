import torch


class XpuBaseBackend:
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        mode = forward_batch.forward_mode
        if mode.is_target_verify():
            return self._target_verify(q, layer, forward_batch)
        if mode.is_draft_extend():
            return self._draft_extend(q, layer, forward_batch)
        return self._prefill(q, k, v)

    def _target_verify(self, q, layer, forward_batch):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return kbuf[forward_batch.spec_info.kv_indices].to(q.dtype)  # negative: the verify tree's slots gathered first

    def _draft_extend(self, q, layer, forward_batch):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        return kbuf.view(torch.uint8)  # negative: reinterpret

    def _prefill(self, q, k, v):
        return k.to(q.dtype), v.to(q.dtype)  # negative: ragged keys and values of the step


class XpuMLABackend(XpuBaseBackend):
    def _target_verify(self, q, layer, forward_batch):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if kbuf.dtype != q.dtype:
            kbuf = kbuf.to(q.dtype)  # positive: f2 CL001 whole latent buffer upcast in the subclass's verify override
        return kbuf
