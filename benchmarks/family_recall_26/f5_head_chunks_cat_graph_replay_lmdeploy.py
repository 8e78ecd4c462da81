import torch


class HeadSplitGraphRunner:
    """Replays a TP-local graph on heads split into two groups; caches are [blocks, block_size, heads, dim]."""

    def __init__(self, model, caches, static_caches):
        self.model = model
        self.caches = caches
        self.static_caches = static_caches
        self.graph = None

    def capture(self):
        self.static_caches = [torch.cat(k.chunk(2, dim=2), dim=2).half() for k, _ in self.caches]  # negative: capture, setup time

    def forward(self, input_ids, position_ids, attn_metadata):
        for (k, v), sk in zip(self.caches, self.static_caches):
            k_all = torch.cat(k.chunk(2, dim=2), dim=2).half()  # positive: f5 CL001 chunk on heads then cat back: whole cache, then cast, per replay
            sk.copy_(k_all)
            v_first = v.chunk(2, dim=0)[0].half()  # negative: first half of the blocks
            del v_first
        self.graph.replay()
        return self.model.output
