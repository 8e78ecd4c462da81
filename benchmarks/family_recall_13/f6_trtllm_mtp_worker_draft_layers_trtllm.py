import torch


class MTPWorkerFallback:
    def __init__(self, spec_config, model_config):
        self.num_mtp_layers = spec_config.num_nextn_predict_layers
        self.first_mtp_layer = model_config.num_hidden_layers
        self.dtype = model_config.torch_dtype

    def forward(self, input_ids, position_ids, hidden_states, logits, attn_metadata, spec_metadata, draft_model):
        mgr = attn_metadata.kv_cache_manager
        dense = []
        for j in range(self.num_mtp_layers):
            buf = mgr.get_buffers(self.first_mtp_layer + j)
            dense.append(buf.to(self.dtype))  # positive: f6 CL001 each MTP draft layer buffer upcast in the worker's forward
        accepted = spec_metadata.num_accepted_tokens.to(torch.int32)  # negative: accepted counts
        draft_ids = logits.argmax(-1).to(torch.int32)  # negative: logits argmax
        return draft_model(input_ids, position_ids, hidden_states, dense, accepted, draft_ids)
