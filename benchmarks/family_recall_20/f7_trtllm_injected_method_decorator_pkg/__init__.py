from .attention import NoFp8GenAttention
from .readers import with_dense_reader
