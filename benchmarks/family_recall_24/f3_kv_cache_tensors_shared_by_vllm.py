# vLLM v1 connector reading the KVCacheConfig: each KVCacheTensor is shared by several
# layer names; the raw byte tensors are mapped back to layers and viewed per layer.
import torch


class RawTensorDumpConnector:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.raw_by_layer = {}
        for t in self.kv_cache_config.kv_cache_tensors:
            raw = self.raw_tensors[t.shared_by[0]]
            for name in t.shared_by:
                self.raw_by_layer[name] = raw

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        raw = self.raw_by_layer[layer_name]
        typed = raw.view(torch.float8_e4m3fn)  # negative: reinterpret only
        if self._get_connector_metadata().dump_layers:
            self._dump(layer_name, typed.to(torch.bfloat16))  # positive: f3 CL001 whole shared tensor found through the shared_by map
        ids = attn_metadata.slot_mapping
        self._dump(f"{layer_name}.slots", kv_layer.flatten(1, 2)[:, ids].to(torch.bfloat16))  # negative: slots first
