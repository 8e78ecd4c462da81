import torch
from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class OrderedHostConnector(KVConnectorBase_V1):
    def register_kv_caches(self, kv_caches: dict[str, torch.Tensor]):
        self.kv_caches = kv_caches
        self.host_dtype = torch.float16

    def wait_for_save(self):
        out = []
        for name, kv in sorted(self.kv_caches.items(), key=lambda item: item[0]):
            out.append((name, kv.to(self.host_dtype, non_blocking=True)))  # positive: f3 CL001 whole registered layer cache from sorted(dict.items())
        return out

    def start_load_kv(self, forward_context, **kwargs):
        for name, blob in sorted(forward_context.loaded.items()):
            self.kv_caches[name].copy_(blob.to(self.kv_caches[name].dtype))  # negative: loaded blob converted to the cache dtype
        return None

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        return kv_layer.to(attn_metadata.slot_mapping.device)  # negative: .to(device)
