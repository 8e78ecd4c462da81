import torch


class AiterFallbackBackend:
    def __init__(self, model_runner):
        self.native_fp8 = model_runner.server_args.enable_native_fp8_decode
        self._decode_impls = {True: self._decode_native, False: self._decode_upcast}

    def _decode_native(self, q, layer, forward_batch):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        raw = kv.view(torch.uint8)  # negative: reinterpret only
        return self._kernel(q, raw, layer.k_scale)

    def _decode_upcast(self, q, layer, forward_batch):
        kv = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        kv = kv.to(torch.bfloat16)  # positive: f4 CL001 impl picked from a dict of bound methods in forward_decode
        return self._kernel(q, kv, None)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        impl = self._decode_impls[self.native_fp8]
        return impl(q, layer, forward_batch)

    def _kernel(self, q, kv, scale):
        return q
