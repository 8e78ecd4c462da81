"""Generator methods overridden with `for t in super().iter_latent(): yield ...` (hip-style prefetch)."""
import torch


class LayerWalker:
    def __init__(self, pool, layer_ids):
        self.pool = pool
        self.layer_ids = layer_ids

    def iter_latent(self):
        for i in self.layer_ids:
            yield self.pool.get_key_buffer(i)


class FlatWalker(LayerWalker):
    def iter_latent(self):
        for t in super().iter_latent():
            yield t.flatten(0, 1)


class RowWalker(LayerWalker):
    def __init__(self, pool, layer_ids, loc):
        super().__init__(pool, layer_ids)
        self.loc = loc

    def iter_latent(self):
        for t in super().iter_latent():
            yield t[self.loc]


class HipPrefetchBackend:
    def __init__(self, model_runner):
        self.layer_ids = list(range(model_runner.model_config.num_hidden_layers))

    def init_forward_metadata(self, forward_batch):
        pool = forward_batch.token_to_kv_pool
        self.dense = [t.to(torch.bfloat16) for t in FlatWalker(pool, self.layer_ids).iter_latent()]  # positive: f2 CL001 every layer's flattened latent via the overriding generator
        self.first = next(LayerWalker(pool, self.layer_ids).iter_latent()).float()  # positive: f2 CL001 first layer from the base generator
        self.rows = [t.to(torch.bfloat16) for t in RowWalker(pool, self.layer_ids, forward_batch.out_cache_loc).iter_latent()]  # negative: rows of this step
