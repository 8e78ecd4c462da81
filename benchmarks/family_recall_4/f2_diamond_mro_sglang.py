"""Diamond inheritance: which override the MRO picks decides whether the value is a whole pool."""
import torch


class PoolSource:
    def _key_src(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)

    def _val_src(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_value_buffer(layer.layer_id)

    def _lat_src(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_key_buffer(layer.layer_id)[forward_batch.out_cache_loc]


class LeftPath(PoolSource):
    def _lat_src(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_key_buffer(layer.layer_id)[..., :512]


class RightPath(PoolSource):
    def _key_src(self, layer, forward_batch):
        return forward_batch.token_to_kv_pool.get_kv_buffer(layer.layer_id)[0]

    def _val_src(self, layer, forward_batch):
        pool = forward_batch.token_to_kv_pool
        return pool.get_value_buffer(layer.layer_id)[forward_batch.out_cache_loc]

    def _lat_src(self, layer, forward_batch):
        return super()._lat_src(layer, forward_batch)


class DiamondBackend(LeftPath, RightPath):
    def __init__(self, model_runner):
        self.kernel = model_runner.attn_kernels.decode

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kc = self._key_src(layer, forward_batch).to(q.dtype)  # positive: f2 CL001 MRO picks RightPath, key half of get_kv_buffer
        vc = self._val_src(layer, forward_batch).to(q.dtype)  # negative: MRO picks RightPath, which gathers rows
        lat = self._lat_src(layer, forward_batch).to(q.dtype)  # positive: f2 CL001 MRO picks LeftPath, feature slice of every slot
        return self.kernel(q, kc, vc, lat)


class LeftOnlyBackend(LeftPath):
    def __init__(self, model_runner):
        self.kernel = model_runner.attn_kernels.extend

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        vc = self._val_src(layer, forward_batch).half()  # positive: f2 CL001 inherited from PoolSource through LeftPath, whole value pool
        qh = q.half()  # negative: batch q
        return self.kernel(qh, vc)
