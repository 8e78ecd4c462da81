import torch


class MTPEagleVerifier:
    def __init__(self, model_config, compute_dtype=torch.bfloat16):
        self.num_layers = model_config.num_hidden_layers
        self.compute_dtype = compute_dtype

    def forward(self, input_ids, logits, draft_tokens, attn_metadata, spec_metadata):
        return self.sample_and_accept_draft_tokens(logits, draft_tokens, attn_metadata, spec_metadata)

    def sample_and_accept_draft_tokens(self, logits, draft_tokens, attn_metadata, spec_metadata):
        mgr = attn_metadata.kv_cache_manager
        last = self.num_layers - 1
        kv_last = mgr.get_buffers(last)
        if spec_metadata.use_dense_reference:
            ref = kv_last.to(self.compute_dtype)  # positive: f6 CL001 target verify widens the last layer's whole buffer
        else:
            ref = None
        probs = torch.softmax(logits.to(torch.float32), dim=-1)  # negative: logits
        accepted = (draft_tokens == probs.argmax(-1)).to(torch.int32)  # negative: mask
        blocks = attn_metadata.kv_cache_params.block_ids_per_seq
        tail = kv_last[blocks[:, -1]].to(self.compute_dtype)  # negative: tail blocks gathered first
        return ref, accepted, tail
