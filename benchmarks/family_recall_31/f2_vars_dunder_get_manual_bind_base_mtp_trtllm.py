# TensorRT-LLM MTP: the Eagle-style MTP worker reuses the base worker's dense target read by binding the
# base function by hand (vars(Base)[name].__get__), skipping the middle class's block-gather override.
import torch


class MTPWorkerBase:
    def __init__(self, spec_config, kv_cache_manager):
        self.spec_config = spec_config
        self.kv_cache_manager = kv_cache_manager

    def _target_kv(self, layer_idx: int, dtype: torch.dtype, block_ids=None):
        return self.kv_cache_manager.get_buffers(layer_idx).to(dtype)  # positive: f2 CL001 every block of the target layer, reached by the manual bind


class MTPWorker(MTPWorkerBase):
    def _target_kv(self, layer_idx, dtype, block_ids=None):
        return self.kv_cache_manager.get_buffers(layer_idx)[block_ids].to(dtype)  # negative: blocks of the batch


class MTPEagleWorker(MTPWorker):
    def forward(self, input_ids, hidden_states, attn_metadata, spec_metadata):
        dense = vars(MTPWorkerBase)["_target_kv"].__get__(self, type(self))
        kv = dense(spec_metadata.mtp_target_layer, hidden_states.dtype)
        draft_ids = spec_metadata.draft_tokens.to(torch.int32)  # negative: token ids
        return self.mtp_layer(input_ids, hidden_states, kv, draft_ids, attn_metadata)


class MTPVanillaWorker(MTPWorker):
    def forward(self, input_ids, hidden_states, attn_metadata, spec_metadata):
        kv = self._target_kv(spec_metadata.mtp_target_layer, hidden_states.dtype, attn_metadata.block_ids)
        return self.mtp_layer(input_ids, hidden_states, kv, spec_metadata.draft_tokens, attn_metadata)
