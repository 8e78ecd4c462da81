import torch


def make_value_body(pool, layer_id, dtype):
    def body():
        return pool.get_value_buffer(layer_id).to(dtype)  # positive: f7 CL001 body only closes over whole value buffers

    return body


def make_lens_body(seq_lens):
    def body():
        return seq_lens.to(torch.int32)  # negative: closes over lengths

    return body
