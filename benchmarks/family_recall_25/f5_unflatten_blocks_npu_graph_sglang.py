import torch


class AscendGraphRunner:
    """NPU graph replay for a BSND cache; the FIA kernel here takes bf16."""

    def __init__(self, model_runner, page_size):
        self.pool = model_runner.token_to_kv_pool
        self.page_size = page_size
        self.dtype = model_runner.dtype

    def replay(self, forward_batch, layer_ids):
        outs = []
        for lid in layer_ids:
            k = self.pool.get_key_buffer(lid)
            paged = k.unflatten(0, (-1, self.page_size)).flatten(-2)
            outs.append(paged.type(self.dtype))  # positive: f5 CL001 unflatten/flatten keep every page, then .type() per replay
        pages = forward_batch.block_tables[:, 0]
        first = self.pool.get_key_buffer(layer_ids[0]).unflatten(0, (-1, self.page_size))[pages].type(self.dtype)  # negative: pages selected before the cast
        return outs, first

    def capture(self, layer_ids):
        self.static = [self.pool.get_key_buffer(lid).unflatten(0, (-1, self.page_size)).type(self.dtype) for lid in layer_ids]  # negative: capture, setup
