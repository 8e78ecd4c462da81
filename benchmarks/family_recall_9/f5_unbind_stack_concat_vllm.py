"""Round trips that keep everything: stack(x.unbind(0)), cat([x]), torch.concat((k, v), -1).

Batch keys/values and gathered slots stacked the same way are look-alikes.
"""
import torch


class RoundTripImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        a = torch.stack(kv_cache.unbind(0)).to(query.dtype)  # positive: f5 CL001 unbind then stack rebuilds the whole cache
        k_plane, v_plane = kv_cache.unbind(0)
        b = torch.cat([k_plane]).half()  # positive: f5 CL001 single-element cat of the K plane
        c = torch.concat((k_plane, v_plane), dim=-1).to(query.dtype)  # positive: f5 CL001 torch.concat of both planes
        slots = attn_metadata.slot_mapping
        d = torch.stack([k_plane.flatten(0, 1)[slots], v_plane.flatten(0, 1)[slots]]).to(query.dtype)  # negative: stacked gathered slots
        e = torch.concat((key, value), dim=-1).to(query.dtype)  # negative: batch keys/values
        return a, b, c, d, e
