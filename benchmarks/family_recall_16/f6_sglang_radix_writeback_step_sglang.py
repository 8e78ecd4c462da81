import torch


class HiRadixWriteBack:
    def __init__(self, token_to_kv_pool, host_k):
        self.pool = token_to_kv_pool
        self.host_k = host_k

    def write_through(self, layer_id, node_device_indices, node_host_indices):
        src = self.pool.get_key_buffer(layer_id)
        self.host_k[layer_id][node_host_indices] = src[node_device_indices].to(self.host_k[layer_id].dtype)  # negative: node rows

    def write_layer_snapshot(self, layer_id):
        self.host_k[layer_id].copy_(self.pool.get_key_buffer(layer_id).to(torch.bfloat16))  # positive: f6 CL001 whole device layer written back each step


class LayerwiseBackupBackend:
    def __init__(self, model_runner, write_back):
        self.wb = write_back

    def forward_extend(self, q, k, v, layer, forward_batch):
        if forward_batch.backup_layers and layer.layer_id in forward_batch.backup_layers:
            self.wb.write_layer_snapshot(layer.layer_id)
        node = forward_batch.write_through_nodes
        if node is not None:
            self.wb.write_through(layer.layer_id, node.device_indices, node.host_indices)
        return q
