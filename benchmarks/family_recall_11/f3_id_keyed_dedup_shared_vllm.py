import torch


class SharedLayerOffloadConnector:
    """KV sharing maps several layer names to one tensor; offload each tensor once."""

    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.unique = {id(c): c for c in kv_caches.values()}
        self.names_by_id = {}
        for name, c in kv_caches.items():
            self.names_by_id.setdefault(id(c), []).append(name)

    def wait_for_save(self):
        meta = self._get_connector_metadata()
        out = []
        for key, cache in self.unique.items():
            host = cache.to(torch.float16)  # positive: f3 CL001 every distinct registered cache, from an id-keyed dict
            ids = torch.tensor(meta.block_ids, dtype=torch.int64)  # negative: block ids
            out.append((self.names_by_id[key], host, cache[:, ids].to(torch.float16)))  # negative: blocks gathered before the cast
        return out

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        cache = self.unique.get(id(kv_layer), kv_layer)
        return cache.float()  # positive: f3 CL001 the layer's whole cache looked up by id
