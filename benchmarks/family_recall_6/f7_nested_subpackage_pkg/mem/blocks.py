import torch


class BlockArena:
    def __init__(self, layer_names, num_blocks, block_size, heads, head_size):
        self._by_name = {
            n: torch.zeros(2, num_blocks, block_size, heads, head_size, dtype=torch.float8_e4m3fn)
            for n in layer_names
        }

    def layer_view(self, name):
        return self._by_name[name]

    def layer_view_bf16(self, name):
        return self._by_name[name].to(torch.bfloat16)  # positive: f7 CL004 the accessor converts the whole layer view

    def blocks(self, name, block_ids):
        return self._by_name[name][:, block_ids]
