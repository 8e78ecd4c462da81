"""sglang: reader mixins in a diamond; cooperative super() chains them, so the upcasting
mixin wraps whatever the base read returns."""
import torch


class KVReadBase:
    def read_layer(self, pool, layer_id):
        return pool.get_key_buffer(layer_id)


class Fp8PassthroughMixin(KVReadBase):
    def read_layer(self, pool, layer_id):
        buf = super().read_layer(pool, layer_id)
        return buf.view(pool.dtype)  # negative: a reinterpreting view, no conversion


class UpcastMixin(KVReadBase):
    compute_dtype = torch.bfloat16

    def read_layer(self, pool, layer_id):
        return super().read_layer(pool, layer_id).to(self.compute_dtype)  # positive: f2 CL001 whole layer via the MRO chain


class RowsMixin(KVReadBase):
    def read_rows(self, pool, layer_id, loc):
        return pool.get_key_buffer(layer_id)[loc].to(torch.bfloat16)  # negative: gathered rows


class XPUMLABackend(UpcastMixin, Fp8PassthroughMixin, RowsMixin):
    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf = self.read_layer(forward_batch.token_to_kv_pool, layer.layer_id)
        return self._mla(q, k_buf, layer)

    def _mla(self, q, k_buf, layer):
        return q
