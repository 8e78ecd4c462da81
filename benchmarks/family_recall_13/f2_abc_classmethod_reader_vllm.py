import abc

import torch


class KVReader(abc.ABC):
    @classmethod
    @abc.abstractmethod
    def read(cls, kv_cache, attn_metadata):
        ...


class WholeReader(KVReader):
    @classmethod
    def read(cls, kv_cache, attn_metadata):
        return kv_cache


class SlotReader(KVReader):
    @classmethod
    def read(cls, kv_cache, attn_metadata):
        return kv_cache.flatten(0, 2)[attn_metadata.slot_mapping]


class XFormersFallbackImpl:
    reader_cls: type = WholeReader

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        data = self.reader_cls.read(kv_cache, attn_metadata)
        data = data.to(query.dtype)  # positive: f2 CL001 classmethod of the class attribute returns the whole cache
        return self._mem_eff(query, data, output)

    def _mem_eff(self, q, kv, out):
        return out


class XFormersSlotImpl(XFormersFallbackImpl):
    reader_cls = SlotReader

    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        rows = self.reader_cls.read(kv_cache, attn_metadata)
        return self._mem_eff(query, rows.to(query.dtype), output)  # negative: slot gather via the subclass reader
