# Conversions made by helpers of a sibling module, called on the whole pool here.
import torch

from .quant import upcast_cache
from . import quant as q_utils
from f7_quant_helpers_pkg import dequant_rows


class HelperQuantBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool
        self.dtype = model_runner.dtype

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        local = layer.layer_id - self.pool.start_layer
        k_up = upcast_cache(self.pool.get_key_buffer(layer.layer_id), q.dtype)  # positive: f7 CL001 sibling-module helper casts the whole key pool
        v_up = upcast_cache(self.pool.get_value_buffer(layer.layer_id), torch.float32)  # positive: f7 CL001 same helper on the whole value pool
        q_up = upcast_cache(q, torch.float32)  # negative: same helper on q
        deq = q_utils.dequant_layer(self.pool.k_buffer[local], self.pool.k_scale_buffer[local], layer.layer_id)  # positive: f7 CL004 module-object call dequantizes a whole arena
        rows = dequant_rows(self.pool.k_buffer[local], self.pool.k_scale_buffer[local], forward_batch.out_cache_loc, layer.layer_id)  # negative: dequant of gathered rows
        return k_up, v_up, q_up, deq, rows
