"""`castlint bot`: post castlint's report to a GitHub pull request from a CI job.

command.run_bot is the entry point; client is a small urllib GitHub REST client
(pagination, retries, rate limits); comment renders the PR comment; suggestions
shapes a fix's edits (castlint.fixes.edit_set, shared with the sarif/rdjson
formats) as GitHub suggestion blocks.
"""
