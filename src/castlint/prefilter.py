"""The text prefilter: can any enabled rule fire on this file at all?

Each rule declares its trigger words (`Rule.triggers`) as groups built from the
vocabulary of castlint.triggers, which the tables define: a file is analysed only if, for some
group, its text contains one word of every set in the group. Most files of an
engine name no pool at all, and are never parsed.

The vocabulary is derived from rules/*.toml, so a new accessor, cast spelling or
wrapper there widens the filter with no code change.
"""

from __future__ import annotations

from typing import Iterable

from castlint.common.words import any_word  # noqa: F401 - has_trigger's test, re-exported
from castlint.tables import Tables
from castlint.triggers import SUPPRESSION_WORDS, TriggerWords  # noqa: F401 - the vocabulary, re-exported


def _normal(groups: Iterable[Iterable[Iterable[str]]]) -> tuple:
    return tuple(tuple(tuple(sorted(words)) for words in group) for group in groups)


def rule_groups_of(groups) -> tuple:
    """Groups of word sets, normalized as trigger_groups returns them."""
    return _normal(groups)


def trigger_groups(tables: Tables, rules=None, scopes=None, exclude_scopes=()) -> tuple:
    """Every rule's trigger groups (rules: default, every registered rule; scopes: only
    rules whose analysis scope is one of these; exclude_scopes: not those), duplicates
    dropped, in rule order."""
    from castlint.checks import all_rules

    words = TriggerWords(tables)
    out = []
    for rule in all_rules() if rules is None else rules:
        if (scopes is not None and rule.scope not in scopes) or rule.scope in exclude_scopes:
            continue
        for group in _normal(rule.triggers(words)):
            if group not in out:
                out.append(group)
    return tuple(out)


def encode(groups: tuple) -> tuple:
    """The groups as bytes, for has_trigger."""
    return tuple(tuple(tuple(word.encode() for word in words) for words in group) for group in groups)


def has_trigger(text: bytes, groups) -> bool:
    """Can any rule fire on this text? groups: encode(trigger_groups(...)).

    The same answer as any(all(any(word in text ...))), with fewer scans of the
    text: each set of words is first tested through a few anchors (substrings
    that every word of the set contains one of), and only the words whose
    anchor occurs are searched for. A set of words that several groups share is tested once a text
    (_plan: the groups as indexes into their distinct sets)."""
    if len(groups) < 4:  # (a few groups built on the spot: prune's tests)
        return any(all(any_word(text, words) for words in group) for group in groups)
    _, plan, sets = _plan(groups)
    seen: list = [None] * len(sets)
    for group in plan:
        for i in group:
            found = seen[i]
            if found is None:
                found = seen[i] = any_word(text, sets[i])
            if not found:
                break
        else:
            return True
    return False


_PLANS: dict = {}  # id(groups) -> (groups, each group as indexes into sets, the distinct sets)


def _plan(groups) -> tuple:
    hit = _PLANS.get(id(groups))
    if hit is None or hit[0] is not groups:
        if len(_PLANS) > 64:
            _PLANS.clear()
        sets: dict = {}
        plan = tuple(tuple(sets.setdefault(words, len(sets)) for words in group) for group in groups)
        hit = _PLANS[id(groups)] = (groups, plan, tuple(sets))
    return hit
