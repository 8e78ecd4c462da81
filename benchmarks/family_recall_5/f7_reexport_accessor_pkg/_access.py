"""Pool access helpers (private module; re-exported by the package)."""


def latent_plane(pool, layer_id):
    return pool.get_key_buffer(layer_id)


def step_rows(pool, layer_id, loc):
    return pool.get_key_buffer(layer_id)[loc]


def index_table(forward_batch):
    return forward_batch.decode_kv_indices
