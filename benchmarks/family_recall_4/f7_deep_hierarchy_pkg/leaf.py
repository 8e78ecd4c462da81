import torch

from f7_deep_hierarchy_pkg.middle import MiddleBackend


class LeafBackend(MiddleBackend):
    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, vb = self._kv(layer, forward_batch)
        kb = kb.to(q.dtype)  # positive: f7 CL001 middle.py override keeps the whole key pool (view), base.py reads it
        vb = vb.to(q.dtype)  # positive: f7 CL001 whole value pool through the same chain
        rows = self._rows(layer, forward_batch).to(q.dtype)  # negative: base gathers before returning
        return self.kernel(q, kb, vb, rows)

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        kb, _ = super(MiddleBackend, self)._kv(layer, forward_batch)
        return kb.float()  # positive: f7 CL001 super(MiddleBackend, self) reaches base.py's whole key pool
