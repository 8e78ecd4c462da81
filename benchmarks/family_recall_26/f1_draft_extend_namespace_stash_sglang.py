from types import SimpleNamespace

import torch


class EAGLEDraftExtendRunner:
    """Draft-extend step of an EAGLE worker whose draft layers share the target pool."""

    def __init__(self, target_worker, shared_layer_ids):
        self.pool = target_worker.model_runner.token_to_kv_pool
        self.shared_layer_ids = list(shared_layer_ids)
        self.compute_dtype = torch.bfloat16

    def _stash(self, layer_id):
        return SimpleNamespace(
            layer_id=layer_id,
            k=self.pool.get_key_buffer(layer_id),
            v=self.pool.get_value_buffer(layer_id),
        )

    def forward_draft_extend(self, batch, spec_info):
        loc = batch.out_cache_loc
        outs = []
        for layer_id in self.shared_layer_ids:
            st = self._stash(layer_id)
            k_all = st.k.to(self.compute_dtype)  # positive: f1 CL001 whole target layer carried by a namespace, converted per draft step
            v_new = st.v[loc].to(self.compute_dtype)  # negative: rows of the new tokens gathered before the cast
            outs.append((k_all, v_new))
        hidden = spec_info.hidden_states.to(self.compute_dtype)  # negative: hidden states, not the pool
        return outs, hidden
