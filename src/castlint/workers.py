"""Worker processes that may die: one file can never end the run.

libcst's native parser is Rust: code nested deeply enough overflows its stack
(SIGSEGV), and a huge file can ask it for more memory than there is (an abort).
Neither can be caught in the process it happens in, so castlint parses and
analyses files only in worker processes, -j 1 included, and this pool watches
them:

- a worker that dies (a signal, an abort, an exit) costs only the task it was on:
  a batch is split and its files are run again one by one, a single file is
  reported (`Lost`) and a fresh worker takes the next task;
- a task that runs past `Limits.timeout` seconds is stopped (SIGKILL) and reported;
- a worker's address space is capped (RLIMIT_AS) at what it had when it started
  plus `Limits.memory`, so a runaway file fails in its worker (MemoryError, or
  the parser's own allocation failure) instead of taking the machine's memory;
- each worker runs its tasks in a thread with a large stack and a high recursion
  limit, so that long expressions (a 1,000-term sum) are analysed, not refused;
- workers ignore SIGINT (Ctrl-C reaches the whole process group: only the parent
  acts on it, no worker prints a traceback), and every way out of the pool in the
  parent (an exception, Interrupted on SIGINT/SIGTERM) kills every worker with
  SIGKILL, which also ends a stopped (SIGSTOP) one, and reaps it at once;
- a worker exits when its parent dies, even by SIGKILL (worker_guard);
- a worker's stderr goes to a temp file, read when it dies: the parser's last
  words (`memory allocation of N bytes failed`) become part of the message, and
  never reach the user's terminal raw.

Workers are forked (CASTLINT_MP picks another start method): they share the
parent's imported modules, and what the parent monkeypatched.
"""

from __future__ import annotations

import collections
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Deque, Iterable, Iterator, List, Optional, Sequence, Tuple

from castlint.common.interrupt import STOP_SIGNALS, Interrupted

GiB = 1 << 30
STACK_SIZE = 512 << 20  # the task thread's stack: virtual, only what is used is ever touched
RECURSION_LIMIT = 100_000
_SLACK = 256 << 20  # malloc arenas a worker reserves beyond its start (its task thread's stack is counted already)


@dataclass(frozen=True)
class Limits:
    """What one task may take: seconds (0: no limit) and bytes of memory (0: no limit)."""

    timeout: float = 0.0
    memory: int = 0
    stack: int = STACK_SIZE
    recursion: int = RECURSION_LIMIT


@dataclass(frozen=True)
class Lost:
    """A task that did not finish: kind is timeout, memory, crash, killed or exit."""

    kind: str
    message: str


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def cap_jobs(jobs: int) -> int:
    """jobs (0: every core), never more than the cores available."""
    cores = available_cores()
    return max(1, min(jobs or cores, cores))


def physical_memory() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * GiB


def default_memory(jobs: int) -> int:
    """The memory one worker may add: 80 % of the machine's memory shared by the workers,
    at least 1 GiB."""
    return max(GiB, int(physical_memory() * 0.8) // max(1, jobs))


def human(n: int) -> str:
    return f"{n / GiB:.1f} GiB" if n >= GiB else f"{n / (1 << 20):.0f} MiB"


# -- the worker side -------------------------------------------------------------------

CURRENT_LIMITS: Optional[Limits] = None  # in a worker: the limits it runs under


def worker_guard(parent: Optional[int] = None) -> None:
    """Make this worker exit when its parent dies, even by SIGKILL.

    Otherwise the workers of a killed `castlint check`/`fix` live on (PPID 1) and keep
    the caller's stdout and stderr open: a CI step reading the pipe never sees EOF. On
    Linux the kernel kills the worker (prctl PR_SET_PDEATHSIG); elsewhere a daemon
    thread polls getppid()."""
    parent = parent or os.getppid()
    direct = os.getppid() == parent  # not so under a forkserver: then watch the pid itself
    if not direct and not _alive(parent):
        os._exit(1)
    if direct and sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before prctl: too late for the signal
                    os._exit(1)
                return
        except (OSError, AttributeError):
            pass

    def watch():
        while True:
            if (os.getppid() != parent) if direct else not _alive(parent):
                os._exit(1)
            time.sleep(0.25)

    threading.Thread(target=watch, name="castlint-parent-watch", daemon=True).start()


_PR_SET_PDEATHSIG = 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # there, but not ours to signal
    return True


def _address_space() -> int:
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _cap_memory(memory: int) -> None:
    if memory <= 0:
        return
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        want = _address_space() + memory + _SLACK
        if hard != resource.RLIM_INFINITY:
            want = min(want, hard)
        resource.setrlimit(resource.RLIMIT_AS, (want, hard))
    except (ImportError, ValueError, OSError):
        pass


def _worker_main(conn, initializer, initargs, limits: Limits, parent: int, err_fd: Optional[int]) -> None:
    """A worker: serve (function, argument) tasks from conn until told to stop."""
    global CURRENT_LIMITS
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to act on
    for signum in STOP_SIGNALS:
        if signum != signal.SIGINT:
            signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if err_fd is not None:
        os.dup2(err_fd, 2)
        _faulthandler_to_stderr()
    CURRENT_LIMITS = limits
    try:
        worker_guard(parent)
        if initializer is not None:
            initializer(*initargs)
        sys.setrecursionlimit(max(sys.getrecursionlimit(), limits.recursion))
        try:
            threading.stack_size(limits.stack)
        except (ValueError, RuntimeError):
            pass
        thread = threading.Thread(target=_serve, args=(conn, limits), name="castlint-task", daemon=True)
        thread.start()
        thread.join()
    except BaseException:  # noqa: BLE001 - to the worker's stderr file, never the user's terminal
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        os._exit(3)
    os._exit(0)


def _faulthandler_to_stderr() -> None:
    """A fault handler the parent enabled (PYTHONFAULTHANDLER, pytest) writes to the fd it
    was given, maybe the user's terminal: point it at this worker's stderr file instead."""
    import faulthandler

    if faulthandler.is_enabled():
        faulthandler.disable()
        try:
            faulthandler.enable(file=2, all_threads=True)
        except (ValueError, OSError, TypeError):
            pass


def _serve(conn, limits: Limits) -> None:
    base = _address_space()
    _cap_memory(limits.memory)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        number, fn, argument = task
        try:
            reply = (number, True, fn(argument))
        except MemoryError:
            reply = (number, False, Lost("memory", _out_of_memory(limits)))
        except BaseException as exc:  # noqa: BLE001 - a task's failure is its own
            reply = (number, False, Lost("exit", f"{type(exc).__name__}: {exc}"[:500]))
        try:
            conn.send(reply)
        except MemoryError:
            conn.send((number, False, Lost("memory", _out_of_memory(limits))))
        _collect_if_big(limits, base)


def _collect_if_big(limits: Limits, base: int) -> None:
    """Workers run without the cyclic GC (castlint.engine); free cycles before they crowd
    out the next file's memory (past half of what a file may use)."""
    if limits.memory and _address_space() > base + limits.memory // 2:
        import gc

        gc.collect()


def _out_of_memory(limits: Optional[Limits]) -> str:
    if limits is not None and limits.memory:
        return f"out of memory: over the {human(limits.memory)} a file may use (max-file-memory)"
    return "out of memory"


# -- the parent side -------------------------------------------------------------------


class _Worker:
    def __init__(self, process, conn, err):
        self.process, self.conn, self.err = process, conn, err
        self.task: Optional[Tuple[int, Any]] = None  # (number, item)
        self.deadline = 0.0


class Pool:
    """Up to size workers, started when there is work for them.

    run(fn, items) yields (item, value, None) for each item fn finished, and
    (item, None, Lost) for one whose worker died or ran out of time; split(item)
    may give smaller items to run instead of reporting a lost one (a batch of files)."""

    def __init__(
        self, size: int, limits: Limits, initializer: Optional[Callable] = None, initargs: tuple = (), context=None
    ):
        import multiprocessing

        if context is None:
            try:
                context = multiprocessing.get_context(os.environ.get("CASTLINT_MP", "fork"))
            except ValueError:
                context = multiprocessing.get_context()
        self.size, self.limits, self.context = max(1, size), limits, context
        self.initializer, self.initargs = initializer, initargs
        self.workers: List[_Worker] = []
        self._numbers = 0

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, kind, value, tb) -> bool:
        if kind is None:
            self.close()
        else:
            self.kill()
        return False

    # -- workers ------------------------------------------------------------------
    def _start(self) -> _Worker:
        parent_conn, child_conn = self.context.Pipe(duplex=True)
        fork = self.context.get_start_method() == "fork"
        err = tempfile.TemporaryFile(prefix="castlint-worker-") if fork else None
        process = self.context.Process(
            target=_worker_main,
            daemon=True,
            name="castlint-worker",
            args=(
                child_conn,
                self.initializer,
                self.initargs,
                self.limits,
                os.getpid(),
                err.fileno() if err is not None else None,
            ),
        )
        held = _block(STOP_SIGNALS)  # no signal may reach the child before it sets its own handlers
        try:
            process.start()
        finally:
            _unblock(held)
        child_conn.close()
        worker = _Worker(process, parent_conn, err)
        self.workers.append(worker)
        return worker

    def _discard(self, worker: _Worker, kill: bool = True) -> None:
        if kill and worker.process.is_alive():
            try:
                os.kill(worker.process.pid, signal.SIGKILL)
            except OSError:
                pass
        worker.process.join(5)
        for thing in (worker.conn, worker.err):
            try:
                if thing is not None:
                    thing.close()
            except OSError:
                pass
        if worker in self.workers:
            self.workers.remove(worker)

    def kill(self) -> None:
        """SIGKILL every worker (busy, idle or stopped) and reap it."""
        for worker in list(self.workers):
            try:
                os.kill(worker.process.pid, signal.SIGKILL)
            except OSError:
                pass
        for worker in list(self.workers):
            self._discard(worker, kill=False)

    def close(self) -> None:
        """Ask idle workers to stop; kill what does not within a second."""
        for worker in self.workers:
            try:
                worker.conn.send(None)
            except OSError:
                pass
        deadline = time.monotonic() + 1.0
        for worker in list(self.workers):
            worker.process.join(max(0.0, deadline - time.monotonic()))
            self._discard(worker)

    # -- tasks --------------------------------------------------------------------
    def run(
        self, fn: Callable, items: Iterable, split: Optional[Callable[[Any], Sequence]] = None
    ) -> Iterator[Tuple[Any, Any, Optional[Lost]]]:
        queue: Deque = collections.deque(items)
        busy: List[_Worker] = []
        while queue or busy:
            while queue and len(busy) < self.size:
                worker = next((w for w in self.workers if w.task is None), None) or self._start()
                if not self._send(worker, fn, queue[0]):
                    self._discard(worker)
                    continue
                queue.popleft()
                busy.append(worker)
            for worker, item, value, lost in self._wait(busy):
                busy.remove(worker)
                if lost is not None and split is not None:
                    parts = split(item)
                    if parts and len(parts) > 1:
                        queue.extendleft(reversed(list(parts)))
                        continue
                yield item, value, lost

    def _send(self, worker: _Worker, fn: Callable, item) -> bool:
        self._numbers += 1
        try:
            worker.conn.send((self._numbers, fn, item))
        except (OSError, ValueError):  # the worker died idle: start another
            return False
        worker.task = (self._numbers, item)
        worker.deadline = time.monotonic() + self.limits.timeout if self.limits.timeout else float("inf")
        return True

    def _wait(self, busy: List[_Worker]) -> List[tuple]:
        """Block until some busy worker answers, dies or runs out of time; what happened to each."""
        from multiprocessing.connection import wait

        nearest = min(w.deadline for w in busy)
        timeout = None if nearest == float("inf") else max(0.0, nearest - time.monotonic())
        ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy], timeout))
        out = []
        now = time.monotonic()
        for worker in list(busy):
            if worker.conn in ready:
                out.append(self._answer(worker))
            elif worker.process.sentinel in ready:
                out.append(self._dead(worker))
            elif now >= worker.deadline:
                number, item = worker.task
                self._discard(worker)
                out.append(
                    (
                        worker,
                        item,
                        None,
                        Lost("timeout", f"took longer than {self.limits.timeout:g} s (file-timeout); stopped"),
                    )
                )
        return out

    def _answer(self, worker: _Worker) -> tuple:
        number, item = worker.task
        try:
            got, ok, value = worker.conn.recv()
        except (EOFError, OSError, ValueError):
            return self._dead(worker)
        except Exception as exc:  # noqa: BLE001 - an answer that does not unpickle
            worker.task = None
            return worker, item, None, Lost("exit", f"its result could not be read back ({type(exc).__name__})")
        worker.task = None
        if got != number:  # cannot happen: one task per worker at a time
            self._discard(worker)
            return worker, item, None, Lost("exit", "the worker answered another task")
        return (worker, item, value, None) if ok else (worker, item, None, value)

    def _dead(self, worker: _Worker) -> tuple:
        number, item = worker.task
        worker.process.join(5)
        code = worker.process.exitcode
        said = _tail(worker.err)
        self._discard(worker)
        if code is not None and code < 0 and -code in STOP_SIGNALS:
            raise Interrupted(-code)  # SIGTERM/SIGINT to the group: the run ends, not this file
        return worker, item, None, describe_death(code, said, self.limits)


def _tail(err) -> str:
    if err is None:
        return ""
    try:
        err.flush()
        err.seek(0, os.SEEK_END)
        size = err.tell()
        err.seek(max(0, size - 2000))
        text = err.read().decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""
    return text


def describe_death(code: Optional[int], said: str, limits: Optional[Limits]) -> Lost:
    """Why a worker died, in words: its exit status and what it wrote last (said)."""
    low = said.lower()
    lines = [line.strip() for line in said.splitlines() if line.strip() and not line.startswith("note:")]
    said = lines[-1] if lines else ""
    if "memory allocation" in low or "out of memory" in low or "memoryerror" in low or "cannot allocate" in low:
        return Lost("memory", _out_of_memory(limits))
    if "overflowed its stack" in low or "stack overflow" in low:
        return Lost("crash", "the parser ran out of stack (code nested too deeply for libcst's native parser)")
    if code is not None and code < 0:
        name = _signal_name(-code)
        if -code == signal.SIGKILL:
            return Lost("killed", f"the worker checking it was killed ({name}; out of memory?)")
        if -code == signal.SIGABRT and limits is not None and limits.memory:
            return Lost("crash", f"the parser aborted ({name}; out of memory, or nesting too deep?)")
        return Lost(
            "crash", f"the parser crashed on this file ({name}; code nested too deeply for libcst's native parser?)"
        )
    return Lost("exit", f"the worker checking it exited with status {code}" + (f" ({said[:200]})" if said else ""))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _block(signals) -> Optional[set]:
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, signals)


def _unblock(previous: Optional[set]) -> None:
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


# -- one call in a worker ------------------------------------------------------------------

_CALL: dict = {}


def _set_call(fn, args) -> None:
    _CALL["call"] = (fn, args)


def _do_call(_unused) -> Any:
    fn, args = _CALL["call"]
    return fn(*args)


def call_isolated(fn: Callable, args: tuple, limits: Limits) -> Tuple[Any, Optional[Lost]]:
    """fn(*args) in a worker of its own: (its value, None), or (None, why it was lost).
    Under fork, fn and args reach the worker without being pickled; the value is."""
    with Pool(1, limits, initializer=_set_call, initargs=(fn, args)) as pool:
        for _item, value, lost in pool.run(_do_call, [0]):
            return value, lost
    return None, Lost("exit", "no answer")
