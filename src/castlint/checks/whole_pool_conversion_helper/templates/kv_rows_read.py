"""Read only the rows of a KV pool that an attention kernel reads.

On pools that store KV packed (the FP4 pools), `get_key_buffer` and
`get_value_buffer` dequantize the layer's whole buffer on every call, although a
kernel that takes a row-index tensor (the Triton decode and extend kernels'
`kv_indices`) reads only those rows. `read_kv_rows(pool, layer_id, rows)` returns
the K and V buffers and the indices to read them by:

- on a pool with rows getters (`get_key_buffer_rows(layer_id, rows)`), the rows
  dequantized alone into compact buffers, and the indices 0..n-1;
- otherwise, or when a getter says its buffer is read as stored, the pool's own
  buffers and `rows`, as before.

The choice is made on the host, with no device sync, from the index tensor's
length: from _WHOLE_POOL_SHARE of the pool's rows on, the whole buffers are read
(a gathered dequantize of nearly every row costs what the whole one does). Under
CUDA graphs the index tensor has a fixed length, so the choice and the compact
buffers' shapes do too. A pool class that overrides an accessor without its rows
getter keeps the whole read.

The switch _SWITCH[0] selects auto (default) or off.
"""

from __future__ import annotations

import functools
import logging
import os

import torch

logger = logging.getLogger(__name__)

# The switch: its environment variable and values (the first is the default).
_SWITCH = ()
# The accessors and the suffix of their rows getters.
_KEY_GETTER = ""
_VALUE_GETTER = ""
_ROWS_SUFFIX = ""
# The pool attribute that holds its row count.
_POOL_ROWS = ""
# From this share of the pool's rows in the index tensor on, the whole buffers are
# read (measured: see _WHOLE_POOL_SHARE_MEASURED).
_WHOLE_POOL_SHARE = 0.0
_WHOLE_POOL_SHARE_MEASURED = ""


@functools.cache
def _enabled():
    variable, values = _SWITCH
    mode = os.environ.get(variable, values[0]).lower()
    if mode not in values:
        logger.warning(
            "%s=%s is not one of %s; using %s",
            variable,
            mode,
            ", ".join(values),
            values[0],
        )
        mode = values[0]
    return mode == values[0]


def _owner(cls, name):
    return next((c for c in cls.__mro__ if name in vars(c)), None)


@functools.cache
def _has_rows_getters(cls):
    """Has cls a rows getter for K or V, each defined by the class that defines its accessor?"""
    if not any(_owner(cls, n + _ROWS_SUFFIX) for n in (_KEY_GETTER, _VALUE_GETTER)):
        return False
    for name in dir(cls):
        rows = _owner(cls, name + _ROWS_SUFFIX)
        if rows is not None and rows is not _owner(cls, name):
            logger.info(
                "KV rows read: %s overrides %s without %s; the whole buffers are read",
                cls.__name__,
                name,
                name + _ROWS_SUFFIX,
            )
            return False
    return True


def _whole(pool, layer_id, rows):
    key = getattr(pool, _KEY_GETTER)(layer_id)
    return key, getattr(pool, _VALUE_GETTER)(layer_id), rows


def _rows(pool, name, layer_id, rows):
    getter = getattr(pool, name + _ROWS_SUFFIX, None)
    return None if getter is None else getter(layer_id, rows)


def read_kv_rows(pool, layer_id, rows):
    """(k, v, indices): the buffers a row-index kernel reads, and the indices it reads them by."""
    pool_rows = getattr(pool, _POOL_ROWS, None)
    if (
        not _enabled()
        or not _has_rows_getters(type(pool))
        or (pool_rows and rows.numel() >= _WHOLE_POOL_SHARE * pool_rows)
    ):
        return _whole(pool, layer_id, rows)
    k, v = (_rows(pool, name, layer_id, rows) for name in (_KEY_GETTER, _VALUE_GETTER))
    if k is None and v is None:
        return _whole(pool, layer_id, rows)
    if k is None:
        k = getattr(pool, _KEY_GETTER)(layer_id)[rows]
    if v is None:
        v = getattr(pool, _VALUE_GETTER)(layer_id)[rows]
    return k, v, torch.arange(rows.numel(), dtype=rows.dtype, device=rows.device)
