"""A decode backend that copies the layer into a staging tensor allocated in the model dtype."""
import torch


class StagedDecodeBackend:
    def __init__(self, model_runner):
        cfg = model_runner.model_config
        pool = model_runner.token_to_kv_pool
        shape = pool.get_key_buffer(pool.start_layer).shape
        self.staging = torch.empty(shape, dtype=cfg.dtype, device=model_runner.device)
        self.raw_mirror = torch.empty(shape, dtype=pool.dtype, device="cpu", pin_memory=True)
        self.mirror_to_host = model_runner.server_args.enable_kv_host_mirror
        self.staging.copy_(pool.get_key_buffer(pool.start_layer))  # negative: one-time fill in __init__

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if self.mirror_to_host:
            self.raw_mirror.copy_(buf, non_blocking=True)  # negative: same dtype mirror
        n = forward_batch.seq_lens_sum
        if self.forward_metadata.use_prefix_only:
            self.staging[:n].copy_(buf[:n])  # negative: a batch-sized prefix
        else:
            self.staging.copy_(buf)  # positive: f5 CL001 every slot of the layer copied into the model-dtype staging tensor
        return self._decode(q, self.staging, layer, forward_batch)
