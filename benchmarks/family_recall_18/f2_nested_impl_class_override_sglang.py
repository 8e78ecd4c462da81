"""sglang-style backend with a nested decode-reader class; a no-FP8 subclass overrides the nested class."""
import torch


class TritonAttnBackend:
    class KVReader:
        def __init__(self, backend):
            self.backend = backend

        def read(self, layer):
            pool = self.backend.token_to_kv_pool
            return pool.get_key_buffer(layer.layer_id), pool.get_value_buffer(layer.layer_id)

    reader_cls = KVReader

    def __init__(self, model_runner):
        self.token_to_kv_pool = model_runner.token_to_kv_pool
        self.reader = self.reader_cls(self)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self.reader.read(layer)
        return self._decode(q, k_buf, v_buf, forward_batch)

    def _decode(self, q, k_buf, v_buf, forward_batch):
        return q


class TritonNoFp8Backend(TritonAttnBackend):
    class KVReader(TritonAttnBackend.KVReader):
        def read(self, layer):
            k_buf, v_buf = super().read(layer)
            k_dense = k_buf.to(torch.bfloat16)  # positive: f2 CL001 nested reader override, whole key layer
            return k_dense, v_buf.to(torch.bfloat16)  # positive: f2 CL001 whole value layer

    reader_cls = KVReader


class TritonLiveRowsBackend(TritonAttnBackend):
    class KVReader(TritonAttnBackend.KVReader):
        def read(self, layer):
            k_buf, v_buf = super().read(layer)
            loc = self.backend.live_loc
            return k_buf[loc].to(torch.bfloat16), v_buf[loc].to(torch.bfloat16)  # negative: live rows only

    reader_cls = KVReader
