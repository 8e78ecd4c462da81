"""An sglang torch-native SDPA style backend: per-request gathers, plus a whole-layer upcast fallback."""
import torch


class TorchNativeSDPABackend:
    def _run_sdpa_decode(self, query, k_cache, v_cache, req_to_token, req_pool_indices, seq_lens):
        outs = []
        for i in range(seq_lens.shape[0]):
            tokens = req_to_token[req_pool_indices[i], : seq_lens[i]]
            per_req_key = k_cache[tokens].to(query.dtype)  # negative: gather-then-cast per request
            per_req_value = v_cache[tokens].to(query.dtype)  # negative: gather-then-cast per request
            outs.append((per_req_key, per_req_value))
        return outs

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        pool = forward_batch.token_to_kv_pool
        k_cache = pool.get_key_buffer(layer.layer_id)
        v_cache = pool.get_value_buffer(layer.layer_id)
        if k_cache.dtype != q.dtype:
            k_cache = k_cache.to(q.dtype)  # positive: f6 CL001 whole K layer upcast before the SDPA loop
            v_cache = v_cache.to(q.dtype)  # positive: f6 CL001 whole V layer upcast before the SDPA loop
        return self._run_sdpa_decode(q, k_cache, v_cache, forward_batch.req_to_token_pool.req_to_token,
                                     forward_batch.req_pool_indices, forward_batch.seq_lens)
