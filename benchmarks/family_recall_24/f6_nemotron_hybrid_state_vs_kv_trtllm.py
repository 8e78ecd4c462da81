# TensorRT-LLM hybrid Mamba/attention model (Nemotron-H style) on the vanilla backend:
# mamba layers read state caches, attention layers read the paged KV manager.
import torch


class HybridDecoderStep:
    def forward(self, hidden, metadata, layer_types):
        kv_mgr = metadata.kv_cache_manager
        state_mgr = metadata.mamba_cache_manager
        for i, kind in enumerate(layer_types):
            if kind == "mamba":
                conv = state_mgr.get_conv_states(i).to(hidden.dtype)  # negative: conv state
                ssm = state_mgr.get_ssm_states(i).float()  # negative: SSM state
                hidden = self.layers[i](hidden, conv, ssm)
            else:
                kv = kv_mgr.get_buffers(i)
                dense = kv.to(hidden.dtype) if kv.dtype != hidden.dtype else kv  # positive: f6 CL001 whole attention-layer buffer
                hidden = self.layers[i](hidden, dense, metadata)
        return hidden
