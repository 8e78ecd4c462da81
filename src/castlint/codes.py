"""The rule codes, importable without libcst (the CLI validates --select/--ignore with them).

tests/test_rule_examples.py checks this tuple against castlint.checks.ALL_RULES.
"""

RULE_CODES = ("CL001", "CL002", "CL003", "CL004", "CL900")
