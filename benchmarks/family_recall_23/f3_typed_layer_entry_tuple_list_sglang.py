# sglang hierarchical cache: host writer keeps (layer_id, kind, tensor) entries built at init.
import torch


class HostWriteBack:
    def __init__(self, pool):
        self.entries = []
        for layer_id in range(pool.start_layer, pool.end_layer):
            self.entries.append((layer_id, "k", pool.k_buffer[layer_id - pool.start_layer]))
            self.entries.append((layer_id, "v", pool.v_buffer[layer_id - pool.start_layer]))
            self.entries.append((layer_id, "ks", pool.k_scale_buffer[layer_id - pool.start_layer]))

    def write_step(self, host_pool, device_indices):
        for layer_id, kind, tensor in self.entries:
            if kind == "ks":
                continue
            if self.whole_layer:
                host_pool.put(layer_id, kind, tensor.to(torch.bfloat16))  # positive: f3 CL001 whole per-layer buffer from the entry list
            else:
                host_pool.put(layer_id, kind, tensor[device_indices].to(torch.bfloat16))  # negative: rows first


class Scheduler:
    def event_loop_normal(self):
        while True:
            batch = self.get_next_batch_to_run()
            self.run_batch(batch)
            self.hicache_writer.write_step(self.host_pool, batch.out_cache_loc)
