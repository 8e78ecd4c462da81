import torch


class HostMirrorConnector:
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.host[layer_name] = kv_layer.to(torch.bfloat16).cpu()  # positive: f6 CL001 whole layer widened for a bf16 mirror


class BlockSendConnector:
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        slots = attn_metadata.slot_mapping
        flat = kv_layer.flatten(1, 2)[:, slots]
        self.send(layer_name, flat.to(torch.bfloat16))  # negative: slots of this step selected first


class MultiConnector:
    """Fans each save out to every child connector."""

    def __init__(self, connectors):
        self._connectors = connectors

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        for c in self._connectors:
            c.save_kv_layer(layer_name, kv_layer, attn_metadata, **kwargs)

    def wait_for_save(self):
        for c in self._connectors:
            c.wait_for_save()

    def get_finished(self, finished_req_ids):
        scale = torch.ones(1).to("cuda")  # negative: device move of a scalar
        return set(), set(), scale
