import enum
from typing import NamedTuple


class Kind(enum.IntEnum):
    KEY = 0
    VALUE = 1
    SCALE = 2


class CacheDesc(NamedTuple):
    layer: int
    kind: Kind


def key_of(layer):
    return CacheDesc(layer, Kind.KEY)


def value_of(layer):
    return CacheDesc(layer, Kind.VALUE)


def scale_of(layer):
    return CacheDesc(layer, Kind.SCALE)
