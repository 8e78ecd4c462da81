# SPDX-License-Identifier: Apache-2.0
"""Connector that fingerprints layers on save (debug) and streams slot rows otherwise."""
import hashlib

import torch

from vllm.distributed.kv_transfer.kv_connector.v1.base import KVConnectorBase_V1


class FingerprintConnector(KVConnectorBase_V1):
    def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):
        if self._debug:
            digest = kv_layer.view(-1).float().sum().item()  # positive: f6 CL001 flat view of the whole layer upcast for a checksum
            self._log(layer_name, digest)
        slots = attn_metadata.slot_mapping
        flat = kv_layer.reshape(2, -1, kv_layer.shape[-2], kv_layer.shape[-1])
        rows = flat[:, slots].to(torch.bfloat16)  # negative: slot gather first
        self._send(layer_name, rows)
        raw = hashlib.sha1(kv_layer.view(torch.uint8).cpu().numpy().tobytes()).hexdigest()  # negative: byte view and device move, no dtype conversion
        self._log(layer_name, raw)

    def _log(self, name, value):
        pass

    def _send(self, name, rows):
        pass
