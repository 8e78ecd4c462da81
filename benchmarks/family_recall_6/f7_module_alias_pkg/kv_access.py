def k_half(manager, layer_idx):
    return manager.get_buffers(layer_idx)[:, 0]


def v_half(manager, layer_idx):
    return manager.get_buffers(layer_idx)[:, 1]


def seq_blocks(manager, layer_idx, block_ids):
    return manager.get_buffers(layer_idx)[block_ids]
