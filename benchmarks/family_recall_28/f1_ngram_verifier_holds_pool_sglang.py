"""sglang n-gram speculative decoding: a verifier object holds the target pool; verify() runs every step."""
import torch


class _NgramVerifier:
    def __init__(self, pool, compute_dtype):
        self._pool = pool
        self._dtype = compute_dtype

    def keys(self, layer_id):
        return self._pool.get_key_buffer(layer_id).to(self._dtype)  # positive: f1 CL001 whole per-layer key buffer of the held target pool

    def values(self, layer_id):
        return self._pool.get_value_buffer(layer_id).to(self._dtype)  # positive: f1 CL001 whole per-layer value buffer of the held target pool

    def rows(self, layer_id, loc):
        return self._pool.get_key_buffer(layer_id)[loc].to(self._dtype)  # negative: accepted-token rows gathered first

    def raw_bytes(self, layer_id):
        return self._pool.get_key_buffer(layer_id).view(torch.uint8)  # negative: reinterpret, zero-copy


class NgramWorker:
    def __init__(self, target_worker, server_args):
        runner = target_worker.model_runner
        self.verifier = _NgramVerifier(runner.token_to_kv_pool, runner.dtype)
        self.num_draft_tokens = server_args.speculative_num_draft_tokens

    def verify(self, batch, layer_ids):
        scores, accepted = [], []
        for lid in layer_ids:
            k = self.verifier.keys(lid)
            q = batch.spec_info.draft_query(lid).to(k.dtype)  # negative: the draft query
            scores.append(torch.einsum("qht,thd->qhd", torch.einsum("qhd,thd->qht", q, k), self.verifier.values(lid)))
            accepted.append(self.verifier.rows(lid, batch.out_cache_loc))
        return scores, accepted
