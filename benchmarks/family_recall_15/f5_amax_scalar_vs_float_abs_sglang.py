import torch


class KVRangeMonitor:
    """Per-step KV range check, called from forward_decode when calibration is on."""

    def __init__(self):
        self.history = []

    def observe(self, buf):
        peak = buf.float().abs().amax()  # positive: f5 CL001 the whole buffer widened before the reduction
        cheap = buf.abs().amax().float()  # negative: only the 0-d result is converted
        rms = buf.to(torch.float32).pow(2).mean().sqrt()  # positive: f5 CL001 whole buffer widened before squaring
        self.history.append((peak, cheap))
        return peak


class CalibratingFlashInferBackend:
    def __init__(self, monitor, calibrate):
        self.monitor = monitor
        self.calibrate = calibrate

    def forward_decode(self, q, k, v, layer, forward_batch):
        buf = forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)
        if self.calibrate:
            self.monitor.observe(buf)
        new = buf[forward_batch.out_cache_loc].float().abs().amax()  # negative: gathered rows
        return q, new
