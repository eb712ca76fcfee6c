# Reads a float32 safetensors file into torch tensors without the safetensors package (not in
# Debian), for the PyTorch reference benchmarks. Each tensor owns its memory (clone), so training
# can update it in place.
import json
import struct

import torch


def read_safetensors(path):
    with open(path, 'rb') as f:
        buf = f.read()
    n = struct.unpack('<Q', buf[:8])[0]
    header = json.loads(buf[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == '__metadata__':
            continue
        a, b = e['data_offsets']
        out[name] = torch.frombuffer(bytearray(buf[8 + n + a:8 + n + b]), dtype=torch.float32).reshape(e['shape']).clone()
    return out
