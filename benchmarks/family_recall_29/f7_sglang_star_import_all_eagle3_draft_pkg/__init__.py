"""sglang EAGLE3 draft backend whose KV readers come in through `from .kv_read import *`."""
