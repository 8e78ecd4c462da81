from . import utils


class StagingConnector:
    def __init__(self, vllm_config, role):
        self.caches = {}

    def register_kv_caches(self, kv_caches):
        self.caches = dict(kv_caches)

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        out = utils.to_transfer_dtype(kv_layer)
        slots = utils.slots_tensor(attn_metadata.slot_mapping)
        return out, slots

    def wait_for_layer_load(self, layer_name):
        return utils.to_transfer_dtype(self.caches[layer_name])
