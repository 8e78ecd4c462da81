"""SIGTERM and SIGINT end a run and all its workers within 2 s, whatever the workers are
doing (busy on a slow file, or stopped with SIGSTOP); Ctrl-C to the process group prints
no worker traceback; the run exits 2 with one line, `castlint: interrupted`."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

GOOD = "def forward_decode(self, q, layer):\n    k = self.pool.get_key_buffer(layer.layer_id).to(q.dtype)\n"
SLOW = GOOD + "    x = " + " + ".join(f"a{i}" for i in range(5000)) + "\n"  # about a minute for libcst


def _children(pid: int) -> list:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(entry))
    return out


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"


def _start(tmp_path: Path, jobs: str, slow_files: int):
    tree = tmp_path / "tree"
    tree.mkdir()
    for i in range(slow_files):
        (tree / f"slow{i}.py").write_text(SLOW)
    for i in range(20):
        (tree / f"good{i:02d}.py").write_text(GOOD)
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "castlint", "check", "--no-cache", "-j", jobs, str(tree)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    workers: list = []
    while time.monotonic() < deadline and len(workers) < min(int(jobs), slow_files):
        time.sleep(0.2)
        workers = _children(proc.pid)
    assert workers, "no worker started"
    time.sleep(1.0)  # the workers are on the slow files now
    return proc, workers


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("how", ["busy", "stopped", "group"])
def test_a_signal_ends_the_run_and_every_worker_within_2_s(tmp_path, sig, how):
    proc, workers = _start(tmp_path, "2", slow_files=2)
    try:
        if how == "stopped":
            for pid in workers:
                os.kill(pid, signal.SIGSTOP)
        start = time.monotonic()
        if how == "group":  # Ctrl-C in a terminal: the whole process group gets it
            os.killpg(proc.pid, sig)
        else:
            os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=30)
        took = time.monotonic() - start
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and not all(_gone(pid) for pid in workers):
            time.sleep(0.05)
        assert all(_gone(pid) for pid in workers), "a worker outlived the run"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert took < 2.0, took
    assert proc.returncode == 2
    text = err.decode()
    assert text.strip().splitlines() == ["castlint: interrupted"], text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_signal_with_one_worker_on_a_run_of_few_files(tmp_path):
    """-j 1 and a small run: the parse still runs in a worker, which the signal ends too."""
    proc, workers = _start(tmp_path, "1", slow_files=1)
    start = time.monotonic()
    os.kill(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - start < 2.0
    assert proc.returncode == 2 and err.decode().strip() == "castlint: interrupted"
    time.sleep(0.2)
    assert all(_gone(pid) for pid in workers)


def test_interrupted_is_not_a_keyboard_interrupt():
    """click/typer turn KeyboardInterrupt into `Aborted!` or exit 130; castlint's own exception
    passes them untouched, and `except Exception` blocks do not swallow it."""
    from castlint.common.interrupt import Interrupted

    assert not issubclass(Interrupted, (KeyboardInterrupt, Exception))


def test_the_cli_restores_the_signal_handlers_it_installed(tmp_path):
    from conftest import run_castlint

    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    (tmp_path / "a.py").write_text("x = 1\n")
    run_castlint("check", tmp_path / "a.py", cwd=tmp_path)
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_an_ignored_sigint_stays_ignored(tmp_path):
    """A background job (SIGINT ignored by the shell) or nohup: castlint does not take the signal back."""
    from castlint.common import interrupt

    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        installed = interrupt.install()
        assert signal.SIGINT not in installed and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        interrupt.restore(installed)
    finally:
        signal.signal(signal.SIGINT, previous)
