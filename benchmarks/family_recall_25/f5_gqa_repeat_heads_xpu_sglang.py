import torch


class XPUTorchDecodeBackend:
    def __init__(self, model_runner):
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        if save_kv_cache:
            pool.set_kv_buffer(layer, forward_batch.out_cache_loc, k, v)
        n_rep = layer.tp_q_head_num // layer.tp_k_head_num
        k_all = pool.get_key_buffer(layer.layer_id).repeat(1, n_rep, 1).to(self.dtype)  # positive: f5 CL001 repeat over heads keeps every slot, then cast
        v_all = pool.get_value_buffer(layer.layer_id).repeat(1, n_rep, 1)
        v_all = v_all.to(self.dtype)  # positive: f5 CL001 repeated value buffer, whole
        k_new = k.repeat(1, n_rep, 1).to(self.dtype)  # negative: new tokens
        seq_k = pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc].repeat(1, n_rep, 1).float()  # negative: slots gathered first
        return k_all, v_all, k_new, seq_k
