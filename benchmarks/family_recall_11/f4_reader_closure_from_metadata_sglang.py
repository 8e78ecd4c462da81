import torch


class ClosureReaderBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.kv_cache_dtype = model_runner.kv_cache_dtype

    def _make_reader(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        loc = forward_batch.out_cache_loc
        dtype = self.dtype

        def whole(layer):
            return pool.get_key_buffer(layer.layer_id).to(dtype)  # positive: f4 CL001 closure made in init_forward_metadata, reads the pool itself

        def recent(layer):
            return pool.get_key_buffer(layer.layer_id)[loc].to(dtype)  # negative: the step's slots gathered first

        return whole if forward_batch.forward_mode.is_decode() else recent

    def init_forward_metadata(self, forward_batch):
        self._read = self._make_reader(forward_batch)
        self.lens = forward_batch.seq_lens.to(torch.int32)  # negative: lengths

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._read(layer)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        return self._read(layer), k.to(q.dtype)  # negative: the step's keys
