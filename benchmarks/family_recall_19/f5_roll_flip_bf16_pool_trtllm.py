import torch


class RingBufferCacheRotation:
    """A BF16 manager rotated for a streaming-LLM sink layout, read in fp32 by the torch path."""

    def __init__(self, sink_blocks=1):
        self.sink_blocks = sink_blocks

    def forward(self, q, metadata, layer_idx):
        buf = metadata.kv_cache_manager.get_buffers(layer_idx)
        rolled = torch.roll(buf, shifts=self.sink_blocks, dims=0).to(torch.float32)  # positive: f5 CL001 roll keeps every block
        flipped = torch.flip(buf, dims=[-1]).double()  # positive: f5 CL001 last-dim flip keeps every slot
        same = torch.roll(buf, 1, 0).to(buf.dtype)  # negative: same dtype
        sinks = buf[: self.sink_blocks].float()  # negative: sink blocks only
        return rolled, flipped, same, sinks
