import torch


class LayerwiseStoreConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.names = list(kv_caches)
        self._storer = None

    def _store_layers(self, block_ids):
        for name in self.names:
            cache = self.kv_caches[name]
            payload = cache.to(torch.float16)  # positive: f6 CL001 each layer's whole cache, converted inside the layer-wise storer generator
            picked = cache[:, block_ids].to(torch.float16)  # negative: the request's blocks gathered first
            yield name, payload, picked

    def start_load_kv(self, forward_context, **kwargs):
        meta = self._get_connector_metadata()
        self._storer = self._store_layers(torch.as_tensor(meta.block_ids, dtype=torch.long))  # negative: block ids

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self._storer is not None:
            return next(self._storer)
        return None
