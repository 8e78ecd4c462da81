# vLLM Triton MLA backend on a GPU whose decode kernel reads only bf16 latents: a per-layer prefetcher
# started in _forward_decode widens the latent cache on a side stream; the decode waits on its result.
import torch


class _LatentPrefetch:
    def __init__(self, stream: torch.cuda.Stream):
        self.stream = stream
        self._out = None
        self._event = torch.cuda.Event()

    def start(self, kv_c_and_k_pe_cache: torch.Tensor, dtype: torch.dtype):
        with torch.cuda.stream(self.stream):
            self._out = kv_c_and_k_pe_cache.to(dtype, non_blocking=True)  # positive: f1 CL001 every block of the layer's latent cache, each decode
            self._event.record(self.stream)
        return self

    def result(self):
        torch.cuda.current_stream().wait_event(self._event)
        return self._out


class TritonMLAImpl:
    def __init__(self, num_heads, kv_lora_rank):
        self.prefetch = _LatentPrefetch(torch.cuda.Stream())
        self.kv_lora_rank = kv_lora_rank

    def _forward_decode(self, q, kv_c_and_k_pe_cache, attn_metadata, layer):
        pending = self.prefetch.start(kv_c_and_k_pe_cache, q.dtype)
        q_scale = layer._q_scale.to(torch.float32)  # negative: a scale
        kv = pending.result()
        return self._decode(q, kv, attn_metadata.decode.block_table, q_scale)
