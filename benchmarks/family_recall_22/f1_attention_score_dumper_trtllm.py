import torch


class LayerDumpContext:
    def __init__(self, metadata, layer_idx):
        self.metadata = metadata
        self.layer_idx = layer_idx

    @property
    def cache(self):
        return self.metadata.kv_cache_manager.get_buffers(self.layer_idx)


def dump_layer(ctx: LayerDumpContext, out: dict):
    kv = ctx.cache
    out[ctx.layer_idx] = kv.to(torch.bfloat16)  # positive: f1 CL001 whole layer buffer reached through the context property
    out[f"{ctx.layer_idx}.shape"] = torch.tensor(kv.shape, dtype=torch.int64)  # negative: shape tensor
    out[f"{ctx.layer_idx}.head"] = kv[:1].to(torch.bfloat16)  # negative: first block only


class TrtllmAttention:
    def __init__(self, layer_idx, dump):
        self.layer_idx = layer_idx
        self.dump = dump

    def forward(self, q, k, v, attn_metadata):
        if self.dump is not None:
            dump_layer(LayerDumpContext(attn_metadata, self.layer_idx), self.dump)
        return q
