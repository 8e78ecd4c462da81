def k_plane(kv_layer):
    return kv_layer[0]


def v_plane(kv_layer):
    return kv_layer[1]


def blocks(kv_layer, block_ids):
    return kv_layer[:, block_ids]
