import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class HostMirrorConnector(KVConnectorBase_V1):
    """Keeps a bf16 host mirror of finished layers for a CPU-side consumer."""

    def __init__(self, vllm_config, role):
        super().__init__(vllm_config, role)
        self.mirror_dtype = torch.bfloat16
        self._lookup = None
        self._out = {}

    def register_kv_caches(self, kv_caches):
        self._lookup = kv_caches.get
        self._template = {n: t.to(self.mirror_dtype) for n, t in kv_caches.items()}  # negative: register_kv_caches, setup time

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        whole = self._lookup(layer_name)
        self._out[layer_name] = whole.to(self.mirror_dtype).cpu()  # positive: f1 CL001 whole layer via a bound dict.get stored under another name
        slots = attn_metadata.slot_mapping
        flat = whole.flatten(1, 2)[:, slots].to(self.mirror_dtype)  # negative: slots of this step selected before the cast
        self._out[layer_name + ".new"] = flat.to("cpu", non_blocking=True)  # negative: device move of the gathered slots

    def wait_for_save(self):
        torch.cuda.current_stream().synchronize()
