import torch


def visit_layer(buf, *, convert=None, on_rows=None, locs=None):
    out = convert(buf) if convert is not None else buf
    rows = on_rows(buf[locs]) if on_rows is not None else None
    return out, rows


class CallbackKwargBackend:
    def __init__(self, model_runner):
        self.pool = model_runner.token_to_kv_pool

    def forward_decode(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        lat = self.pool.get_key_buffer(layer.layer_id)
        return visit_layer(
            lat,
            convert=lambda t: t.to(q.dtype),  # positive: f4 CL001 callback only ever applied to the whole layer
            on_rows=lambda r: r.to(q.dtype),  # negative: applied to gathered rows
            locs=forward_batch.out_cache_loc,
        )

    def forward_extend(self, q, k, v, layer, forward_batch, save_kv_cache=True):
        k_buf, v_buf = self.pool.get_kv_buffer(layer.layer_id)
        up = sorted([k_buf, v_buf], key=lambda t: t.stride(0))
        return [t.float() for t in up]  # positive: f4 CL001 both whole planes after sorted(key=lambda)
