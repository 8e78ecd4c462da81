# lmdeploy PD migration: the engine builds a MigrationPayload per request carrying the
# cache engine's layer caches; the payload is widened for a bf16 peer.
import torch


class MigrationPayload:
    def __init__(self, caches, block_ids):
        self.caches = caches
        self.block_ids = block_ids

    def for_peer(self, peer_dtype):
        out = []
        for k_cache, v_cache in self.caches:
            out.append((k_cache[self.block_ids].to(peer_dtype),  # negative: request blocks first
                        v_cache[self.block_ids].to(peer_dtype)))  # negative: request blocks first
        return out

    def whole_layer(self, idx, peer_dtype):
        k_cache, _ = self.caches[idx]
        return k_cache.to(peer_dtype)  # positive: f1 CL001 whole key cache of one layer through the payload


class MigrationEngine:
    async def migrate(self, cache_engine, req):
        payload = MigrationPayload(cache_engine.gpu_cache, req.block_ids)
        if req.peer_layout_mismatch:
            return [payload.whole_layer(i, torch.bfloat16) for i in range(len(payload.caches))]
        return payload.for_peer(torch.bfloat16)
