import torch


class KVNormExporter:
    """Publishes per-layer key norms to a Prometheus gauge (debug metrics)."""

    def __init__(self, token_to_kv_pool, gauge, sample_rows=64):
        self.pool = token_to_kv_pool
        self.gauge = gauge
        self.sample_rows = sample_rows
        self.baseline = token_to_kv_pool.get_key_buffer(0).float().norm()  # negative: setup-time cast in __init__

    def collect(self, layer_id):
        keys = self.pool.get_key_buffer(layer_id)
        self.gauge.labels(layer=str(layer_id)).set(keys.float().norm().item())  # positive: f1 CL001 whole key layer widened through the exporter's pool on every step
        vals = self.pool.get_value_buffer(layer_id)
        self.gauge.labels(layer=f"v{layer_id}").set(vals.double().sum().item())  # positive: f1 CL001 whole value layer widened to float64 through the same exporter
        head = keys[: self.sample_rows].float()  # negative: a prefix of rows is selected before the cast
        return head.abs().amax()


class ModelRunner:
    def __init__(self, model, token_to_kv_pool, gauge):
        self.model = model
        self.kv_exporter = KVNormExporter(token_to_kv_pool, gauge)

    def forward(self, forward_batch):
        out = self.model.forward(forward_batch.input_ids, forward_batch.positions, forward_batch)
        for layer_id in range(self.model.config.num_hidden_layers):
            self.kv_exporter.collect(layer_id)
        return out
