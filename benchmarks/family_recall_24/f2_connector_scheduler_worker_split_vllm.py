# vLLM v1 connector with separate worker classes: a base worker registers caches; the
# "compat" worker used for bf16-only peers widens a layer in wait_for_save.
import torch


class _WorkerBase:
    def register_kv_caches(self, kv_caches):
        self.kv_caches = kv_caches

    def _layer(self, name):
        return self.kv_caches[name]

    def wait_for_save(self):
        for name in self.pending:
            self._flush(name, self._payload(name))
        self.pending.clear()

    def _payload(self, name):
        return self._layer(name)


class _CompatWorker(_WorkerBase):
    def _payload(self, name):
        layer = self._layer(name)
        return layer.to(torch.bfloat16)  # positive: f2 CL001 whole registered layer, per wait_for_save

    def _payload_blocks(self, name, block_ids):
        return self._layer(name)[:, block_ids].to(torch.bfloat16)  # negative: blocks first


class CompatStoreConnector:
    def __init__(self, vllm_config, role):
        self.worker = _CompatWorker() if vllm_config.kv_transfer_config.get("compat") else _WorkerBase()

    def wait_for_save(self):
        self.worker.wait_for_save()
