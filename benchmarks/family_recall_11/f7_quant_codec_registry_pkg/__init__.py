from .codecs import CODECS, register
from . import impl
