"""vLLM-style CPU offload worker with pinned fp16 host buffers, a side stream, and block-wise loads."""
import torch


class PinnedHostOffloadWorker:
    def __init__(self, host_dtype=torch.float16, full_mirror=False):
        self.host_dtype = host_dtype
        self.full_mirror = full_mirror
        self.pending_loads = {}

    def register_kv_caches(self, kv_caches: dict):
        self.gpu = kv_caches
        self.host = {n: torch.empty(c.shape, dtype=self.host_dtype, pin_memory=True) for n, c in kv_caches.items()}
        self.stream = torch.cuda.Stream()

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        with torch.cuda.stream(self.stream):
            if self.full_mirror:
                self.host[layer_name].copy_(kv_layer, non_blocking=True)  # positive: f6 CL001 copy_ into the fp16 pinned mirror converts every block
            else:
                ids = attn_metadata.offload_block_ids
                self.host[layer_name].index_copy_(1, ids.cpu(), kv_layer[:, ids].to(self.host_dtype).cpu())  # negative: offloaded blocks only

    def start_load_kv(self, forward_context, **kwargs):
        for name, ids in self.pending_loads.items():
            blocks = self.host[name][:, ids].to(self.gpu[name].device, self.gpu[name].dtype, non_blocking=True)  # negative: host blocks being loaded
            self.gpu[name][:, ids] = blocks

    def wait_for_save(self):
        self.stream.synchronize()
