import torch


class HybridDebugRunner:
    def __init__(self, kv_caches: dict, attention_layers):
        self.kv_caches = kv_caches
        self.attention_layers = list(attention_layers)

    def _dense_layers(self, *layer_names, dtype=torch.float32):
        return [self.kv_caches[n].to(dtype) for n in layer_names]  # positive: f4 CL001 whole caches of the names passed through *layer_names

    def _state_layers(self, *names, dtype=torch.float32):
        return [self.kv_caches[n][0].to(dtype) for n in names]  # negative: called only for mamba conv state entries below

    def execute_model(self, scheduler_output):
        dense = self._dense_layers(*self.attention_layers)
        states = self._state_layers(*scheduler_output.mamba_layers)
        return dense, states
