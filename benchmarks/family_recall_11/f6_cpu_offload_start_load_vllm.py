import torch


class CpuOffloadConnector:
    def register_kv_caches(self, kv_caches):
        self.gpu_caches = kv_caches
        self.cpu_caches = {
            n: torch.empty(c.shape, dtype=torch.float8_e4m3fn, device="cpu", pin_memory=True)
            for n, c in kv_caches.items()
        }
        self.warm = {n: c.to(torch.float16) for n, c in self.cpu_caches.items()}  # negative: registration-time conversion

    def start_load_kv(self, forward_context, **kwargs):
        meta = self._get_connector_metadata()
        for name, gpu in self.gpu_caches.items():
            if meta.full_reload:
                gpu.copy_(self.cpu_caches[name].to("cuda", torch.bfloat16))  # positive: f6 CL001 whole pinned host cache converted while reloading
                continue
            ids = torch.as_tensor(meta.block_ids, dtype=torch.long)  # negative: block ids
            gpu[:, ids] = self.cpu_caches[name][:, ids].to("cuda", non_blocking=True)  # negative: gathered blocks, device move only

    def wait_for_save(self):
        for name, gpu in self.gpu_caches.items():
            self.cpu_caches[name].copy_(gpu, non_blocking=True)  # negative: same-dtype copy to the host
