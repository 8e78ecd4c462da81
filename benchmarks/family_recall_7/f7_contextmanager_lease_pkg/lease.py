import contextlib


@contextlib.contextmanager
def layer_lease(pool, layer_id):
    yield pool.k_buffer[layer_id], pool.v_buffer[layer_id]


@contextlib.contextmanager
def rows_lease(pool, layer_id, loc):
    yield pool.k_buffer[layer_id][loc]
