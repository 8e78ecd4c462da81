from .backend import SharedMLABackend


class EagleLikeWorker:
    def __init__(self, target_runner, draft_runner):
        self.target_pool = target_runner.token_to_kv_pool
        self.draft_pool = draft_runner.token_to_kv_pool
        self.backend = SharedMLABackend()

    def forward_batch_speculative_generation(self, batch):
        self.backend.pool = self.draft_pool
        self.backend.forward_decode(batch.q, None, None, batch.layer, batch)
        self.backend.pool = self.target_pool
        return self.backend.forward_decode(batch.q, None, None, batch.layer, batch)
