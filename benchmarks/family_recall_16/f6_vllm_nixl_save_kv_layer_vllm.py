import torch


class NixlStyleConnectorWorker:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches
        self.host = {n: torch.empty_like(c, dtype=torch.bfloat16, device="cpu") for n, c in kv_caches.items()}  # negative: setup allocation
        self.pending = []

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if attn_metadata.transfer_whole_layer:
            self.host[layer_name].copy_(kv_layer.to(torch.bfloat16), non_blocking=True)  # positive: f6 CL001 whole layer converted before the host copy
            return
        slots = attn_metadata.slot_mapping
        self.pending.append(kv_layer.flatten(1, 2)[:, slots].to(torch.bfloat16))  # negative: this step's slots

    def wait_for_save(self):
        for t in self.pending:
            t.to("cpu")  # negative: device move
        self.pending.clear()
