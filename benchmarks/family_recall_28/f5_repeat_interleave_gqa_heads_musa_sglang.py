"""sglang MUSA torch-native decode: GQA heads expanded with repeat_interleave on the whole pool buffer."""
import torch


class MusaTorchNativeBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.num_heads = model_runner.model_config.num_attention_heads
        self.num_kv_heads = model_runner.model_config.get_num_kv_heads(model_runner.tp_size)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        n_rep = self.num_heads // self.num_kv_heads
        k_buf = self.pool.get_key_buffer(layer.layer_id)
        v_buf = self.pool.get_value_buffer(layer.layer_id)
        k_all = k_buf.repeat_interleave(n_rep, dim=1).to(q.dtype)  # positive: f5 CL001 head expansion keeps every slot of the pool
        v_all = torch.repeat_interleave(v_buf, n_rep, dim=1).to(q.dtype)  # positive: f5 CL001 functional form, value buffer
        return torch.ops.musa.sdpa_decode(q, k_all, v_all, forward_batch.req_to_token, forward_batch.seq_lens)

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        n_rep = self.num_heads // self.num_kv_heads
        loc = forward_batch.out_cache_loc
        k_rows = self.pool.get_key_buffer(layer.layer_id)[loc].repeat_interleave(n_rep, dim=1).to(q.dtype)  # negative: rows gathered first
        k_new = k.repeat_interleave(n_rep, dim=1).to(q.dtype)  # negative: new tokens
        return torch.ops.musa.sdpa_extend(q, k_new, k_rows, forward_batch.extend_seq_lens)
