import torch


class _TargetKVReader:
    def __init__(self, kv_cache_manager, first_layer):
        self.get = kv_cache_manager.get_buffers
        self.first_layer = first_layer

    def __call__(self, offset):
        return self.get(self.first_layer + offset)


class MTPWorker:
    def __init__(self, spec_config, model_dtype=torch.bfloat16):
        self.num_mtp_layers = spec_config.num_nextn_predict_layers
        self.model_dtype = model_dtype

    def forward(self, input_ids, hidden_states, attn_metadata, spec_metadata):
        read = _TargetKVReader(attn_metadata.kv_cache_manager, spec_metadata.mtp_first_layer)
        outs = []
        for i in range(self.num_mtp_layers):
            kv = read(i).to(self.model_dtype)  # positive: f1 CL001 target buffer via a callable reader object, per MTP step
            outs.append(kv)
        h = hidden_states.to(self.model_dtype)  # negative: hidden states
        ids = input_ids.to(torch.int64)  # negative: token ids
        return outs, h, ids
