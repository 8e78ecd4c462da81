import torch

CHUNK = 65536


class ChunkedUpcastBackend:
    """Upcasts in chunks to bound peak memory; still touches every slot."""

    def __init__(self, model_runner):
        self.dtype = model_runner.dtype
        self.workspace = None

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kbuf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        parts = [c.to(self.dtype) for c in kbuf.split(CHUNK)]  # positive: f5 CL001 every chunk of the whole buffer converted
        used = kbuf[: forward_batch.seq_lens_sum]
        small = [c.to(self.dtype) for c in used.split(CHUNK)]  # negative: chunks of the tokens in use only
        return torch.cat(parts), small

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        vbuf = forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)
        if self.workspace is None:
            self.workspace = torch.empty(vbuf.shape, dtype=self.dtype, device=vbuf.device)
        for s in range(0, vbuf.shape[0], CHUNK):
            self.workspace[s : s + CHUNK] = vbuf[s : s + CHUNK]  # positive: f5 CL001 loop over the whole extent fills a bf16 workspace slice by slice
        n = forward_batch.extend_num_tokens
        return self.workspace, v[:n].to(self.dtype)  # negative: the step's values
