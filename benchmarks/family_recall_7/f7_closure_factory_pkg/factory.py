def make_reader(pool):
    def read(layer_id):
        return pool.k_buffer[layer_id - pool.start_layer]

    return read


def make_row_reader(pool):
    return lambda layer_id, loc: pool.k_buffer[layer_id - pool.start_layer][loc]
