"""An abstract property implemented with functools.cached_property in two sources."""
import abc
import functools

import torch


class CacheSource(abc.ABC):
    @property
    @abc.abstractmethod
    def planes(self): ...


class RegisteredSource(CacheSource):
    def __init__(self, kv_caches, name):
        self.kv_caches = kv_caches
        self.name = name

    @functools.cached_property
    def planes(self):
        return self.kv_caches[self.name].unbind(0)


class StepSource(CacheSource):
    def __init__(self, kv_layer, slot_mapping):
        self.kv_layer = kv_layer
        self.slot_mapping = slot_mapping

    @functools.cached_property
    def planes(self):
        return tuple(p.flatten(0, 1)[self.slot_mapping] for p in self.kv_layer.unbind(0))


class CachedPlaneConnector:
    def register_kv_caches(self, kv_caches):
        self.sources = {n: RegisteredSource(kv_caches, n) for n in kv_caches}

    def wait_for_layer_load(self, layer_name):
        k, v = self.sources[layer_name].planes
        self._recv(k.to(torch.float16))  # positive: f2 CL001 K plane from the cached_property implementation

    def start_load_kv(self, forward_context, **kwargs):
        for src in self.sources.values():
            self._recv(src.planes[1].half())  # positive: f2 CL001 V plane of every registered layer

    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        k, v = StepSource(kv_layer, attn_metadata.slot_mapping).planes
        self._recv(k.to(torch.float16))  # negative: the step's slots

    _recv = staticmethod(lambda t: t)
