import torch


class LayerExportPipeline:
    """Runs a list of stage callables over one layer before handing it to the connector."""

    def __init__(self, dtype=torch.bfloat16):
        self.dtype = dtype
        self.stages = [self._contiguous, self._widen]

    def _contiguous(self, t):
        return t.contiguous()

    def _widen(self, t):
        return t.to(self.dtype)  # positive: f4 CL001 whole layer reaches this stage through the stage list

    def run(self, kv_layer):
        out = kv_layer
        for stage in self.stages:
            out = stage(out)
        return out


class ExportConnector:
    def __init__(self):
        self.pipeline = LayerExportPipeline()

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        self.pipeline.run(kv_layer)
        return self.pipeline._contiguous(kv_layer[:, attn_metadata.block_ids])  # negative: blocks, and no cast
