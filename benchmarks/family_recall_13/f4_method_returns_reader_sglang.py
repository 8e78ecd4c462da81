import torch


class FlashMLAFallbackBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def _reader(self, forward_batch):
        pool = forward_batch.token_to_kv_pool

        def read(layer_id):
            return pool.get_key_buffer(layer_id).to(self.dtype)  # positive: f4 CL001 reader closure returned by a method, called per layer

        return read

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        read = self._reader(forward_batch)
        kv = read(layer.layer_id)
        kv = kv.view(-1, 64, 1, 576)
        cache_seqlens = forward_batch.seq_lens.to(torch.int32)  # negative: sequence lengths
        return self._flash_mla(q, kv, cache_seqlens)

    def _flash_mla(self, q, kv, lens):
        return q
