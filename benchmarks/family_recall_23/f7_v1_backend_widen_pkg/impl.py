from . import PlaneWidener


class Sm75FlexImpl:
    def forward(self, layer, query, key, value, kv_cache, attn_metadata, output=None):
        widener = PlaneWidener(query.dtype)
        if attn_metadata.use_blocks:
            cache = widener.blocks(kv_cache, attn_metadata.block_ids)
        else:
            cache = widener.whole(kv_cache)
        return self._flex(query, cache, attn_metadata, output)
