import torch


class ChunkedPrefillBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        ragged = self._ragged(q, k, v)
        if forward_batch.extend_prefix_lens_cpu and max(forward_batch.extend_prefix_lens_cpu) > 0:
            return self._merge(ragged, self._forward_paged_prefix(q, layer, forward_batch))
        return ragged

    def _ragged(self, q, k, v):
        return k.view(-1, 576).to(q.dtype)  # negative: the chunk's own keys

    def _forward_paged_prefix(self, q, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return self._prefix_kv(pool, layer.layer_id, q.dtype)

    def _prefix_kv(self, pool, layer_id, dtype):
        buf = pool.get_key_buffer(layer_id)
        return buf.to(dtype)  # positive: f4 CL001 prefix attention converts the whole paged buffer, three calls deep

    def _merge(self, a, b):
        lse = torch.zeros(a.shape[0]).to(self.dtype)  # negative: small merge state
        return a, b, lse
