import torch


class DeepseekV2AttentionMLA(torch.nn.Module):
    def forward_normal_chunked_kv_prepare(self, positions, hidden_states, forward_batch):
        pool = forward_batch.token_to_kv_pool
        latent = pool.get_key_buffer(self.attn_mha.layer_id)
        chunks = []
        for idx in forward_batch.prefix_chunk_kv_indices:
            kv_a = latent[idx].to(hidden_states.dtype)  # negative: chunk rows gathered before the cast
            chunks.append(kv_a)
        return chunks

    def forward_normal_no_fp8_fallback(self, positions, hidden_states, forward_batch):
        pool = forward_batch.token_to_kv_pool
        latent = pool.get_key_buffer(self.attn_mha.layer_id).to(hidden_states.dtype)  # positive: f6 CL001 whole latent pool converted before the prefix gather
        kv_a = latent[forward_batch.prefix_chunk_kv_indices[0]]
        kv_a_normed, k_pe = kv_a.split([self.kv_lora_rank, self.qk_rope_head_dim], dim=-1)
        kv = self.kv_b_proj(kv_a_normed.to(self.kv_b_proj.weight.dtype))[0]  # negative: already converted tensor (not labelled again)
        return kv, k_pe

    def forward(self, positions, hidden_states, forward_batch):
        if forward_batch.use_fp8_chunked_path:
            return self.forward_normal_chunked_kv_prepare(positions, hidden_states, forward_batch)
        return self.forward_normal_no_fp8_fallback(positions, hidden_states, forward_batch)
