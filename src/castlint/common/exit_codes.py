"""The exit codes every castlint command uses (as ruff): 0 clean, 1 findings, 2 errors."""

EXIT_CLEAN = 0  # no findings (or `validate`: every check passed)
EXIT_FINDINGS = 1  # findings (or `validate`: a check failed)
EXIT_ERROR = 2  # a usage, configuration or file error
