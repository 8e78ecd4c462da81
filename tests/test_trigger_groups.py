"""The prefilter's trigger groups are tuples of word sets: a file passes a group when it holds a word of each
set. A set spread into single words (each string then read as a set of its characters) makes almost every file
pass: round 23's dtype-argument group did that to every calling-convention group (vLLM: 65 more files analysed)."""

from castlint.engine import encoded_triggers
from castlint.prefilter import has_trigger
from castlint.tables import load_tables

TABLES = load_tables()


def test_every_group_is_a_tuple_of_word_sets():
    for group in encoded_triggers(TABLES):
        assert isinstance(group, tuple) and group
        for words in group:
            assert isinstance(words, (set, frozenset, tuple)), group[:2]
            assert all(isinstance(w, bytes) and len(w) > 1 for w in words), sorted(words)[:5]


def test_a_convention_parameter_without_a_conversion_does_not_pass():
    source = (
        b"def save_kv_layer(self, layer_name, kv_layer, attn_metadata, **kwargs):\n"
        b"    self.store[layer_name] = (kv_layer, attn_metadata)\n"
        b"    return sum(len(v) for v in self.store.values())\n"
    )
    assert not has_trigger(source, tuple(encoded_triggers(TABLES)))
    assert has_trigger(source.replace(b"(kv_layer, attn", b"(kv_layer.float(), attn"), tuple(encoded_triggers(TABLES)))
