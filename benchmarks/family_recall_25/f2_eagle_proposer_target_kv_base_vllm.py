import torch


class SpecDecodeBaseProposer:
    def __init__(self, vllm_config, runner):
        self.runner = runner
        self.dtype = vllm_config.model_config.dtype

    def _target_kv(self, layer_name):
        return self.runner.kv_caches[self.runner.layer_to_index[layer_name]]

    def propose(self, target_hidden_states, common_attn_metadata, layer_names):
        caches = {n: self._prepare(n) for n in layer_names}
        h = target_hidden_states.to(self.dtype)  # negative: hidden states
        return caches, h

    def _prepare(self, layer_name):
        return self._target_kv(layer_name)


class EagleProposerNoFp8(SpecDecodeBaseProposer):
    def _prepare(self, layer_name):
        kv = super()._prepare(layer_name)
        if kv.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
            return kv.to(self.dtype)  # positive: f2 CL001 override widens the target layer cache from super(), called from propose
        return kv

    def draft_rows(self, layer_name, slots):
        return super()._prepare(layer_name).flatten(1, 2)[:, slots].to(self.dtype)  # negative: slots selected first (not per-step here either)
