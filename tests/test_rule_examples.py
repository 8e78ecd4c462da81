"""Every rule's VALID/INVALID examples are its docs and its tests (Fixit style)."""

import libcst as cst
import pytest

from castlint.checks import ALL_RULES
from castlint.config import Config
from castlint.engine import analyze_module
from castlint.tables import load_tables

TABLES = load_tables()
CONFIG = Config()


def findings_for(source: str, code: str = None):
    """Findings with the default rules, plus `code` (opt-in rules such as CL005 are off by default)."""
    from castlint.codes import DEFAULT_CODES

    config = Config(select=tuple(DEFAULT_CODES) + (code,)) if code else CONFIG
    module = cst.parse_module(source)
    return analyze_module(module, "example.py", source, TABLES, config, config.cost_model(TABLES))


# The static rules' examples; a runtime rule's (CL101) run under the tracer in tests/test_trace.py.
STATIC = [r for r in ALL_RULES if r.kind != "runtime"]
CASES = [(r.code, i, src) for r in STATIC for i, src in enumerate(r.VALID)]
BAD = [(r.code, i, src, lines) for r in STATIC for i, (src, lines) in enumerate(r.INVALID)]


@pytest.mark.parametrize("code,index,source", CASES, ids=[f"{c}-valid-{i}" for c, i, _ in CASES])
def test_valid_examples_are_not_flagged(code, index, source):
    assert [f for f in findings_for(source, code) if f.code == code] == []


@pytest.mark.parametrize("code,index,source,lines", BAD, ids=[f"{c}-invalid-{i}" for c, i, _, _ in BAD])
def test_invalid_examples_flag_exact_lines(code, index, source, lines):
    got = sorted(f.start.line for f in findings_for(source, code) if f.code == code)
    assert got == sorted(lines)


FIXED = [
    (r.code, i, src, example.fixed)
    for r in STATIC
    for i, example in enumerate(r.INVALID)
    for src in [example[0]]
    if getattr(example, "fixed", None) is not None
]


def edits_of(source: str, code: str) -> list:
    """The findings of code in source, with the edits a check that shows fixes gives them."""
    from castlint.engine import check_file
    from castlint.session import FixOptions, describer, take_edits

    config = Config(select=(code,))
    result = check_file(
        "example.py", TABLES, config, config.cost_model(TABLES), source=source.encode(), fixer=describer(FixOptions())
    )
    take_edits([result])
    return [f for f in result.findings if f.code == code]


@pytest.mark.parametrize("code,index,source,fixed", FIXED, ids=[f"{c}-fixed-{i}" for c, i, _, _ in FIXED])
def test_invalid_examples_fix_to_their_expected_source(code, index, source, fixed):
    """An INVALID example's `fixed` is what `castlint fix` writes, and what its finding's edits make."""
    from castlint.fixes import FixOptions, fix_source
    from castlint.fixes.edit_set import apply_edits, edits_by_file

    assert fix_source(source.encode(), "example.py", TABLES, FixOptions()).new_source.decode() == fixed
    findings = edits_of(source, code)
    assert findings and all(f.fix is not None and f.fix.edits for f in findings)
    assert apply_edits(source.encode(), edits_by_file(findings)["example.py"]).decode() == fixed


def test_cl003_says_what_its_fix_writes():
    """The fixable rules' examples carry their fixed source (at least CL003's, so FIXED is never empty)."""
    assert [code for code, *_ in FIXED].count("CL003") == 2


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda r: r.code)
def test_every_rule_is_documented_with_examples(rule):
    for text in (rule.summary, rule.what_it_does, rule.why_it_matters, rule.example, rule.fix_safety):
        assert text.strip()
    assert rule.VALID and rule.INVALID


def test_rule_codes_module_matches_the_registry():
    from castlint.codes import RULE_CODES

    assert RULE_CODES == tuple(r.code for r in ALL_RULES)


def test_opt_in_rules_are_off_by_default_and_selectable():
    """CL005 (batch-sized conversions) reports only when selected by its full code."""
    from castlint.codes import OPT_IN, enabled_codes

    source = next(src for src, _ in ALL_RULES[[r.code for r in ALL_RULES].index("CL005")].INVALID)
    assert "CL005" in OPT_IN
    assert [f.code for f in findings_for(source)] == []
    assert [f.code for f in findings_for(source, "CL005")] == ["CL005"]
    assert "CL005" not in enabled_codes((), ()) and "CL005" not in enabled_codes(("CL",), ())
    assert "CL005" in enabled_codes(("CL005",), ()) and "CL001" in enabled_codes((), ())


def test_opt_in_rule_through_extend_select(tmp_path):
    """`extend-select = ["CL005"]` keeps every default rule and adds CL005."""
    from castlint.config import parse_config

    config = parse_config({"extend-select": ["CL005"]}, None, tmp_path)
    assert config.rule_enabled("CL005") and config.rule_enabled("CL001") and config.rule_enabled("CL900")
    assert not parse_config({"select": ["CL"]}, None, tmp_path).rule_enabled("CL005")
    assert parse_config({"select": ["CL005"]}, None, tmp_path).rule_enabled("CL005")
