import torch


def iter_layers(manager, layer_ids):
    for i in layer_ids:
        yield i, manager.get_buffers(i)


class StarAttentionGenerationStep:
    def __init__(self, manager, num_layers, compute_dtype=torch.bfloat16):
        self.manager = manager
        self.layer_ids = range(num_layers)
        self.compute_dtype = compute_dtype

    def forward(self, q, attn_metadata):
        dense = ((i, buf.to(self.compute_dtype)) for i, buf in iter_layers(self.manager, self.layer_ids))  # positive: f4 CL001 generator pipeline widens each whole layer
        outs = []
        for i, kv in dense:
            outs.append(q @ kv.flatten(0, 2).T)
        anchor = attn_metadata.anchor_blocks
        picked = (buf[anchor].to(self.compute_dtype) for _, buf in iter_layers(self.manager, self.layer_ids))  # negative: anchor-block gather
        keys_only = [buf[:, 0].half() for _, buf in iter_layers(self.manager, self.layer_ids)]  # positive: f4 CL001 key plane of every block, each layer
        return outs, list(picked), keys_only
