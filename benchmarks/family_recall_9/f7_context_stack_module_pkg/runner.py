from . import ctx


class StackRunner:
    def __init__(self, model, token_to_kv_pool):
        self.model = model
        self.token_to_kv_pool = token_to_kv_pool

    def forward(self, forward_batch):
        with ctx.using(self.token_to_kv_pool, forward_batch.seq_lens):
            return self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)
