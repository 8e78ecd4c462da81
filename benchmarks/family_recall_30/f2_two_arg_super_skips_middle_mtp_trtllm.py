"""TRT-LLM MTP: MTPEagleWorker calls super(MTPWorker, self), skipping MTPWorker's block gather and reaching the base's dense read."""
import torch


class SpecWorkerBase:
    compute_dtype = torch.bfloat16

    def _target_kv(self, mgr, layer_idx):
        return mgr.get_buffers(layer_idx).to(self.compute_dtype)  # positive: f2 CL001 whole target layer, reached from MTPEagleWorker by super(MTPWorker, self)


class MTPWorker(SpecWorkerBase):
    def _target_kv(self, mgr, layer_idx):
        return mgr.get_buffers(layer_idx)[self.block_ids].to(self.compute_dtype)  # negative: blocks of the batch

    def forward(self, input_ids, position_ids, hidden_states, logits, attn_metadata, spec_metadata):
        mgr = attn_metadata.kv_cache_manager
        self.block_ids = attn_metadata.kv_cache_block_offsets[0, :, 0]
        kv = [self._target_kv(mgr, i) for i in self.mtp_layer_ids]
        h = hidden_states.to(self.compute_dtype)  # negative: hidden states
        return self._draft(h, kv, logits)


class MTPEagleWorker(MTPWorker):
    def _target_kv(self, mgr, layer_idx):
        return super(MTPWorker, self)._target_kv(mgr, layer_idx)
