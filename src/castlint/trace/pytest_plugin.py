"""pytest plugin: `pytest --castlint-trace[=THRESHOLD]` fails a test that converts a whole long-lived buffer.

Registered through the `pytest11` entry point (or `-p castlint.trace.pytest_plugin`).
Without the option it only adds the option: torch is not imported and no test
is wrapped. With it, each test's call phase runs under castlint.trace.watch();
a test during which a large long-lived buffer is converted (see docs/trace.md)
fails with the report, which names the line:

    pytest --castlint-trace=256MiB tests/test_decode.py

`@pytest.mark.castlint_trace(threshold=..., allow=True)` changes the threshold
for one test, or lets it convert (allow=True). Use `--castlint-trace=SIZE`
(with `=`): a value after a space would be read as the threshold.
"""

from __future__ import annotations

import pytest

OPTION = "--castlint-trace"
DEFAULT = "default"


def pytest_addoption(parser):
    group = parser.getgroup("castlint", "castlint runtime trace")
    group.addoption(
        OPTION,
        action="store",
        nargs="?",
        const=DEFAULT,
        default=None,
        metavar="THRESHOLD",
        dest="castlint_trace",
        help="fail tests that convert a large, long-lived buffer as a whole (a KV pool's "
        ".to(dtype) ...); THRESHOLD e.g. 64MiB (default: rules/trace.toml)",
    )
    group.addoption(
        "--castlint-trace-static",
        action="store",
        default="on",
        choices=("on", "off"),
        dest="castlint_trace_static",
        help="correlate runtime findings with castlint's static findings (on) or not (off)",
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "castlint_trace(threshold=None, allow=False): castlint trace settings "
        "for this test (allow=True: conversions do not fail it)",
    )
    value = config.getoption("castlint_trace", None)
    if value is not None and value != DEFAULT:
        from castlint.trace.table import TraceTableError, parse_threshold

        try:
            parse_threshold(value)
        except TraceTableError as exc:
            raise pytest.UsageError(f"{OPTION}={value}: {exc} (write {OPTION}=SIZE, with `=`)") from exc


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    value = item.config.getoption("castlint_trace", None)
    marker = item.get_closest_marker("castlint_trace")
    if value is None or (marker is not None and marker.kwargs.get("allow")):
        return (yield)
    threshold = None if value == DEFAULT else value
    if marker is not None and marker.kwargs.get("threshold") is not None:
        threshold = marker.kwargs["threshold"]
    from castlint.trace import watch

    static = item.config.getoption("castlint_trace_static", "on") == "on"
    watcher = watch(threshold, static=static)
    with watcher:
        result = yield
    findings, errors, meta = watcher.tracer.findings(static=static)
    if findings:
        from castlint.trace.report import render

        report = render("text", findings, errors, meta, quiet=True)
        lines = "\n".join(f"  {f.path}:{f.start.line}: {f.code} in {f.function}" for f in findings)
        pytest.fail(
            f"castlint trace: this test converted a large long-lived buffer as a whole at\n{lines}\n\n{report}",
            pytrace=False,
        )
    return result
