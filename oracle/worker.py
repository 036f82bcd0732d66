"""Worker processes: every vectorizer call, JIT build and kernel run happens
in one, so a segfault or an endless loop costs a worker, never the harness.

A worker keeps its compiled programs and buffers between requests (campaigns
check thousands of kernels; rebuilding buffers or re-JITting per run would
dominate). The parent side (`Worker`) kills a worker that exceeds its
timeout and starts a fresh one on the next request; `Pool` keeps workers
alive across `oracle.check` calls.

A worker never outlives its parent: a thread in the worker exits the process
as soon as the request pipe reports that its writer is gone or the parent
pid changes (the parent was killed, even with SIGKILL, while the worker was
busy in a kernel or the vectorizer). Linux's PR_SET_PDEATHSIG is not used:
it fires when the *thread* that started the worker ends, and workers are
started from campaign threads that end while their workers serve others.
"""

from __future__ import annotations

import atexit
import ctypes
import faulthandler
import gc
import os
import pickle
import queue
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from . import request_cpu
from .case import ArgSpec, NDRange

# ---------------------------------------------------------------- worker side


class Executor:
    """The in-worker state: compiled programs (LRU) and buffers per layout."""

    MAX_PROGRAMS = 6

    def __init__(self) -> None:
        self.programs: OrderedDict[str, Any] = OrderedDict()
        self.buffers: dict[tuple[ArgSpec, ...], list[Any]] = {}
        self.inits: dict[tuple[tuple[ArgSpec, ...], int], list[Any]] = {}

    def build(self, key: str, kernel: str, text: str, variants: list[Any], opt: int) -> tuple:
        """Compile a program; returns ("ok", variant errors, seconds) or an error tuple."""
        from . import jit
        from .runtime import Unsupported

        try:
            # Non-uniform sub-group collectives: the kernel names its waiting
            # points and counts its loops' iterations (oracle/subgroup_points.py).
            from .subgroup_points import points_text

            prog = jit.build(kernel, points_text(text, kernel), variants, opt)
        except Unsupported as exc:
            return ("unsupported-input", str(exc))
        except (jit.BuildError, NameError) as exc:
            return ("bad-input", str(exc))
        self.programs[key] = prog
        self.programs.move_to_end(key)
        while len(self.programs) > self.MAX_PROGRAMS:
            self.programs.popitem(last=False)
        return ("ok", prog.errors, prog.compile_seconds)

    def _buffers(self, layout: tuple[ArgSpec, ...]) -> list[Any]:
        from .buffers import GuardedBuffer

        bufs = self.buffers.get(layout)
        if bufs is None:
            if len(self.buffers) > 16:
                self.buffers.clear()
                self.inits.clear()
            bufs = [GuardedBuffer(a) if a.kind != "scalar" else None for a in layout]
            self.buffers[layout] = bufs
        return bufs

    def run(self, key: str, variant: str, layout: tuple[ArgSpec, ...], nd: NDRange, seed: int) -> tuple:
        """Refill the buffers from `seed`, run, return ("ok", [bytes of each global buffer], seconds)."""
        from .buffers import initial_contents

        prog = self.programs.get(key)
        if prog is None:
            return ("no-program",)
        bufs = self._buffers(layout)
        inits = self.inits.get((layout, seed))
        if inits is None:
            inits = [initial_contents(a, seed, i) if a.kind != "scalar" else None for i, a in enumerate(layout)]
            self.inits[(layout, seed)] = inits
        blob = (ctypes.c_uint8 * (64 * max(1, len(layout))))()
        locals_: list[tuple[int, int]] = []
        for i, (a, b, init) in enumerate(zip(layout, bufs, inits, strict=False)):
            if a.kind == "scalar":
                raw = scalar_bytes(a)
                ctypes.memmove(ctypes.addressof(blob) + 64 * i, raw, len(raw))
                continue
            b.array[...] = init
            b.arm()
            ctypes.memmove(ctypes.addressof(blob) + 64 * i, struct.pack("<Q", b.address), 8)
            if a.kind == "local":
                locals_.append((b.address, a.nbytes))
        cfg = (ctypes.c_uint64 * (16 + 2 * len(locals_)))()
        for d in range(3):
            cfg[d] = nd.local_size[d]
            cfg[3 + d] = nd.num_groups[d]
            cfg[6 + d] = nd.offset[d]
        cfg[9] = nd.work_dim
        cfg[10] = len(locals_)
        # Scalar runs with sub-groups: the geometry rides on the run key.
        from .subgroups import CFG_DIM, CFG_WIDTH, split_geometry

        variant, cfg[CFG_WIDTH], cfg[CFG_DIM] = split_geometry(variant)
        for k, (addr, nbytes) in enumerate(locals_):
            cfg[16 + 2 * k] = addr
            cfg[17 + 2 * k] = nbytes
        # CPU time, not wall time: the vectorized runs' and the sanitized
        # run's budgets are multiples of it, and must not grow or shrink with
        # the machine's load (kernels do not sleep).
        t0 = time.thread_time()
        # Sanitized runs (oracle.sanitizer) also return their report.
        extra = prog.run(variant, ctypes.addressof(blob), ctypes.addressof(cfg), bufs)
        dt = time.thread_time() - t0
        out = [b.array.tobytes() if a.kind == "buf" else None for a, b in zip(layout, bufs, strict=False)]
        from .printf_capture import take
        printed = take(prog.engine)
        if printed:
            out.append(printed)  # past the buffers: oracle.compare compares it
        overruns = [i for i, (a, b) in enumerate(zip(layout, bufs, strict=False)) if a.kind == "buf" and b.overrun()]
        if overruns:
            return ("overrun", f"wrote past the end of buffer(s) {', '.join(map(str, overruns))}")
        return ("ok", out, dt) if extra is None else ("ok", out, dt, extra)


def scalar_bytes(a: ArgSpec) -> bytes:
    """The little-endian bytes of a `scalar:` argument (splatted for vectors)."""
    base = a.base
    if base.startswith("f"):
        fmt = {"f16": "<e", "f32": "<f", "f64": "<d"}[base]
        one = struct.pack(fmt, float(a.value))
    else:
        bits = int(base[1:])
        one = (int(a.value, 0) & ((1 << bits) - 1)).to_bytes(bits // 8, "little")
    return one * a.lanes


def vectorize_in_worker(text: str, kernel: str, width: int, dim: int, choices: str,
                        verify_analyses: bool = False, target_features: str | None = None) -> tuple:
    """Call the vectorizer (checking its analyses with `verify_analyses`, for
    the host adjusted by `target_features` if given); classify the outcome
    as the oracle reports it."""
    try:
        from vectorizer import IRError, vectorize
    except Exception as exc:  # the vectorizer package itself is broken
        return ("vectorizer-error", f"import failed: {type(exc).__name__}: {exc}")
    try:
        r = vectorize(text, kernel=kernel, width=width, dim=dim, choices=choices,
                      verify_analyses=verify_analyses, target_features=target_features)
    except IRError as exc:
        # The oracle already parsed the input with LLVM, so this is the
        # vectorizer's own reader failing on valid IR.
        return ("vectorizer-error", f"IRError: {exc}")
    except ValueError as exc:
        return ("unsupported-input", f"{exc}")
    except Exception as exc:
        tb = traceback.extract_tb(exc.__traceback__)
        where = f" at {tb[-1].filename}:{tb[-1].lineno}" if tb else ""
        return ("vectorizer-error", f"{type(exc).__name__}: {exc}{where}")
    if r.vectorized_name is None:
        return ("not-vectorized", "; ".join(r.remarks)[:500] or "not vectorized")
    return ("ok", r.vectorized_name, r.ir)


# A request may run this many times its timeout on the wall clock, however
# busy the machine, before it counts as a timeout anyway (a worker whose
# scheduler statistics cannot be read, or that is starved without end).
WALL_CAP_FACTOR = 20.0


def _run_delays(pid: int) -> dict[int, float] | None:
    """Thread id -> seconds waiting for a CPU, for every thread of process
    `pid` (the vectorizer runs on a thread of its own), or None."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    out: dict[int, float] = {}
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                out[int(tid)] = int(f.read().split()[1]) / 1e9
        except (OSError, ValueError, IndexError):
            continue  # the thread ended meanwhile
    return out or None


# How often (seconds) a waiting request reads the worker's statistics: a
# thread that ends takes its statistics with it, so at most this much of
# its waiting can go uncounted.
POLL_SECONDS = 0.5


class Budget:
    """A request's time limit, counted in the worker's own time: wall-clock
    time minus the time the worker's threads waited for a CPU that other
    processes held. A kernel, a vectorize or a build request therefore gets
    the same verdict on an idle machine and on one running other jobs: only
    its own running (or sleeping) counts. Without scheduler statistics (not
    Linux) it is the wall clock. `WALL_CAP_FACTOR` times the limit on the
    wall clock ends a request however little it ran."""

    def __init__(self, seconds: float, pid: int | None = None) -> None:
        self.seconds = seconds
        self.pid = pid
        self.t0 = time.monotonic()
        start = _run_delays(pid) if pid is not None else None
        self.start = start or {}
        self.seen = dict(self.start)  # thread -> its waiting when last read
        self.timed = start is not None

    def elapsed(self) -> float:
        """The worker's own seconds since the request was sent."""
        wall = time.monotonic() - self.t0
        if not self.timed or self.pid is None:
            return wall
        now = _run_delays(self.pid)
        if now is not None:
            self.seen.update(now)
        waited = sum(d - self.start.get(tid, 0.0) for tid, d in self.seen.items())
        return max(0.0, wall - waited)

    def left(self) -> float:
        """Seconds (at least) before the budget can be spent; <= 0 when it is."""
        if time.monotonic() - self.t0 >= self.seconds * WALL_CAP_FACTOR:
            return 0.0
        return self.seconds - self.elapsed()


def _read_exact(fd: int, n: int, deadline: Budget | None) -> bytes:
    """Read `n` bytes from `fd`; TimeoutError once `deadline` is spent, EOFError at EOF."""
    chunks, got = [], 0
    while got < n:
        while deadline is not None:
            left = deadline.left()
            if left <= 0:
                raise TimeoutError
            # The worker's own time runs no faster than the wall clock: wait
            # up to `left` seconds, then ask again how much of it the worker used.
            if select.select([fd], [], [], min(left, POLL_SECONDS))[0]:
                break
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _write_msg(fd: int, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _read_msg(fd: int, deadline: Budget | None) -> Any:
    (n,) = struct.unpack("<Q", _read_exact(fd, 8, deadline))
    return pickle.loads(_read_exact(fd, n, deadline))


PARENT_ENV = "VECZ_ORACLE_PARENT"  # the pid of the process that started the worker


def exit_with_parent(request_fd: int, parent: int, period: float = 0.5) -> threading.Thread:
    """Start a daemon thread that ends this process when its parent is gone:
    `request_fd` (the read end of the parent's request pipe) hangs up, or
    `os.getppid()` is no longer `parent` (reparented after the parent died)."""
    poller = select.poll() if hasattr(select, "poll") else None
    if poller is not None:
        # Mask 0: a request waiting to be read does not wake us; a hang-up does.
        poller.register(request_fd, 0)
    gone = select.POLLHUP | select.POLLERR | select.POLLNVAL if poller is not None else 0

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(0)
            if poller is None:
                time.sleep(period)
                continue
            if any(ev & gone for _fd, ev in poller.poll(int(period * 1000))):
                os._exit(0)

    t = threading.Thread(target=watch, name="vecz-parent-watch", daemon=True)
    t.start()
    return t


def serve() -> None:
    """The worker's request loop (`python -m oracle._worker_main`): length-prefixed
    pickles on stdin/stdout."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when we stop
    # A fatal signal prints the Python stack to stderr, so a crash report can
    # name the call that crashed (the parent reads it back, `_crash_site`).
    faulthandler.enable(file=sys.stderr)
    # The protocol gets private copies of fds 0/1; anything else printing to
    # stdout (LLVM, a debugging vectorizer) goes to stderr instead.
    rfd, wfd = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    try:
        parent = int(os.environ.get(PARENT_ENV, ""))
    except ValueError:
        parent = os.getppid()
    exit_with_parent(rfd, parent)
    ex = Executor()
    profiler = _profiler()
    collect = _GarbageBetweenRequests()
    while True:
        try:
            msg = _read_msg(rfd, None)
        except (EOFError, OSError):
            return
        if profiler is not None:
            profiler()
        op = msg[0]
        try:
            if op == "vectorize":
                res = vectorize_in_worker(*msg[1:])
            elif op == "build":
                res = ex.build(*msg[1:])
            elif op == "run":
                res = ex.run(*msg[1:])
            elif op == "ping":
                res = ("ok", os.getpid())
            elif op == "sleep":  # for tests of the timeout path
                time.sleep(msg[1])
                res = ("ok",)
            elif op == "crash":  # for tests of the crash path
                os.kill(os.getpid(), signal.SIGSEGV)
                res = ("ok",)
            else:
                res = ("error", f"unknown op {op}")
        except Exception as exc:
            res = ("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)}")
        _write_msg(wfd, res)
        collect()


class _GarbageBetweenRequests:
    """The worker's cyclic garbage collected once per request, after its
    answer is sent, instead of by Python's allocation counts during it.

    A vectorize request builds and drops IR graphs of hundreds of thousands
    of objects, all in reference cycles (values and their uses): with the
    default thresholds Python collected thousands of times a campaign, its
    older generations re-walking everything still alive each time, about a
    fifth of a request's CPU time. A request's garbage is young, so the
    youngest generation collected after each request frees it; a full
    collection every `FULL_EVERY` requests frees older cycles (an evicted
    program, a dropped cache entry). The automatic collector stays on with
    a high first threshold, which bounds the garbage a single huge request
    can pile up."""

    FULL_EVERY = 256
    THRESHOLDS = (50_000, 1_000, 1_000)

    def __init__(self) -> None:
        gc.set_threshold(*self.THRESHOLDS)
        self.requests = 0

    def __call__(self) -> None:
        self.requests += 1
        gc.collect(2 if self.requests % self.FULL_EVERY == 0 else 0)


PROFILE_ENV = "VECZ_ORACLE_PROFILE"  # a folder: workers write cProfile statistics there


def _profiler() -> Any:
    """With `VECZ_ORACLE_PROFILE=DIR`, profile this worker and return a
    function to call between requests, which writes DIR/worker-PID.prof every
    so often (a worker is killed, never asked to exit: its statistics must
    be on disk before that). None otherwise."""
    folder = os.environ.get(PROFILE_ENV)
    if not folder:
        return None
    import cProfile

    prof = cProfile.Profile()
    prof.enable()
    path = os.path.join(folder, f"worker-{os.getpid()}.prof")
    seen = [0]

    def tick() -> None:
        seen[0] += 1
        if seen[0] % 20 == 0:
            prof.disable()
            prof.dump_stats(path)
            prof.enable()

    return tick


# ---------------------------------------------------------------- parent side


@dataclass
class Failure:
    """A request that did not answer: the worker died or timed out."""

    kind: str  # "crash" or "timeout"
    detail: str
    # The worker was killed from outside (SIGKILL: the kernel's out-of-memory
    # killer, an operator): says nothing about the request, which is retried.
    killed: bool = False


class Worker:
    """One worker process, restarted on demand after a crash or timeout.

    A plain `python -m oracle.worker` subprocess rather than multiprocessing:
    it never re-imports the caller's `__main__` (campaign scripts need no
    main guard) and inherits no threads or LLVM state from the parent."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.err: Any = None
        self.programs: set[str] = set()  # program keys this process holds
        self.restarts = 0
        self.kernel_runs = 0  # kernels this process has run since it started

    def _start(self) -> None:
        self.err = tempfile.TemporaryFile()
        env = dict(os.environ)
        env.setdefault("PYTHONHASHSEED", "0")
        env[PARENT_ENV] = str(os.getpid())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "oracle._worker_main"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.err,
            close_fds=True, env=env,
        )
        self.programs = set()
        self.kernel_runs = 0

    def _stderr_tail(self) -> str:
        """What the dead worker said last: the innermost Python frames of a
        fatal signal's stack dump, else its last line of stderr."""
        try:
            self.err.seek(0)
            text = self.err.read().decode(errors="replace")
        except Exception:
            return ""
        site = _crash_site(text)
        said = _llvm_message(text)
        if said or site:
            return "; ".join(x for x in (said, site) if x)
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return lines[-1].strip()[:200] if lines else ""

    def kill(self) -> None:
        """Stop this worker process (it is restarted by the next request).

        Safe to call from two threads at once (a campaign's close() while an
        abandoned check kills its own worker): the process is taken out of
        `self.proc` first, so only one caller tears it down."""
        proc, self.proc = self.proc, None
        self.programs = set()
        self.kernel_runs = 0
        if proc is None:
            return
        try:
            proc.kill()
            proc.wait(5)
        except Exception:
            pass
        for f in (proc.stdin, proc.stdout, self.err):
            try:
                f.close()  # type: ignore[union-attr]
            except Exception:
                pass

    def call(self, msg: tuple, timeout: float) -> tuple | Failure:
        """Send one request; the answer, or a `Failure` (worker replaced).

        A worker killed by SIGKILL (nothing the request itself raises: the
        out-of-memory killer under a busy machine's memory pressure) is
        replaced and the request sent once more, to a fresh process."""
        res = self._call(msg, timeout)
        if isinstance(res, Failure) and res.killed:
            res = self._call(msg, timeout)
        return res

    def _call(self, msg: tuple, timeout: float) -> tuple | Failure:
        if self.proc is None or self.proc.poll() is not None:
            if self.proc is not None:
                self.kill()
            self._start()
        proc = self.proc
        assert proc is not None and proc.stdin and proc.stdout
        if msg[0] == "run":
            self.kernel_runs += 1
        try:
            budget = Budget(timeout, proc.pid)
            cpu0 = request_cpu.start(proc.pid)
            _write_msg(proc.stdin.fileno(), msg)
            answer = _read_msg(proc.stdout.fileno(), budget)
            request_cpu.finish(msg[0], proc.pid, cpu0)
            return answer
        except TimeoutError:
            self.kill()
            self.restarts += 1
            return Failure("timeout", f"no answer within {timeout:g}s")
        except (EOFError, OSError, ValueError):
            # ValueError: kill() from another thread (a campaign's close())
            # closed the pipes under us.
            ours = self.proc is proc  # else kill() took it: a SIGKILL of our own
            try:
                code = proc.wait(5)
            except subprocess.TimeoutExpired:
                code = None
            tail = self._stderr_tail()
            self.kill()
            self.restarts += 1
            if code is not None and code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"signal {-code}"
                what = f"worker killed by {name}"
            else:
                what = f"worker exited with status {code}"
            return Failure("crash", what + (f" ({tail})" if tail else ""),
                           killed=ours and code == -signal.SIGKILL)


_FRAME = re.compile(r'^\s+File "([^"]+)", line (\d+) in (\S+)', re.M)


_LLVM_ERROR = re.compile(r"^LLVM ERROR: (.+)$", re.M)
_UNREACHABLE = re.compile(r"^([^\n]+)\nUNREACHABLE executed at (?:[^\n]*/)?([^/\n]+?)!?$", re.M)
_ASSERTION = re.compile(r"^[^\n]*Assertion `(.+)' failed\.$", re.M)


def _llvm_message(stderr: str) -> str:
    """What LLVM said before it stopped the process ("LLVM: Node is not in
    map! (unreachable, SelectionDAG.cpp:1257)"), or ""."""
    found = [(m.start(), f"LLVM: {m.group(1).strip()}") for m in _LLVM_ERROR.finditer(stderr)]
    found += [(m.start(), f"LLVM: {m.group(1).strip()} (unreachable, {m.group(2)})")
              for m in _UNREACHABLE.finditer(stderr)]
    found += [(m.start(), f"LLVM assertion: {m.group(1).strip()}") for m in _ASSERTION.finditer(stderr)]
    return max(found)[1][:200] if found else ""


def _crash_site(stderr: str, frames: int = 3) -> str:
    """The innermost `frames` frames of the last faulthandler dump in
    `stderr` ("in f (file.py:12) < g (other.py:40)"), or ""."""
    at = stderr.rfind("Fatal Python error")
    if at < 0:
        return ""
    # With other threads alive (the parent watch), the dump lists every thread;
    # the crash is in the one marked current.
    cur = stderr.find("Current thread", at)
    found = _FRAME.findall(stderr[cur if cur >= 0 else at:])[:frames]
    return "in " + " < ".join(f"{fn} ({os.path.basename(f)}:{ln})" for f, ln, fn in found) if found else ""


class Pool:
    """Workers shared by every `oracle.check` call of this process."""

    def __init__(self, size: int = 1) -> None:
        if size < 1:
            raise WorkerConfigError(f"a worker pool needs at least one worker, not {size}")
        self.size = size
        self._free: queue.Queue[Worker] = queue.Queue()
        self._all: list[Worker] = []
        self._lock = threading.Lock()

    def acquire(self) -> Worker:
        """A free worker (a new one while fewer than `size` exist)."""
        try:
            return self._free.get_nowait()
        except queue.Empty:
            pass
        with self._lock:
            if len(self._all) < self.size:
                w = Worker()
                self._all.append(w)
                return w
        return self._free.get()

    def release(self, w: Worker) -> None:
        """Return a worker to the pool."""
        self._free.put(w)

    def close(self) -> None:
        """Kill every worker."""
        for w in self._all:
            w.kill()
        self._all.clear()
        self._free = queue.Queue()


_POOL: Pool | None = None
WORKERS_ENV = "VECZ_ORACLE_WORKERS"
MAX_WORKERS = 1024


class WorkerConfigError(ValueError):
    """`VECZ_ORACLE_WORKERS` is not a worker count (a usage error of every command)."""


def pool_size() -> int:
    """The worker count `VECZ_ORACLE_WORKERS` asks for: a positive integer
    (unset, empty or 0: the CPU count). WorkerConfigError otherwise."""
    raw = os.environ.get(WORKERS_ENV, "").strip()
    try:
        n = int(raw) if raw else 0
    except ValueError:
        raise WorkerConfigError(f"{WORKERS_ENV}={raw!r}: expected a number of worker processes "
                                f"(1..{MAX_WORKERS}, or 0 for the CPU count)") from None
    if not 0 <= n <= MAX_WORKERS:
        raise WorkerConfigError(f"{WORKERS_ENV}={raw!r}: expected a number of worker processes "
                                f"(1..{MAX_WORKERS}, or 0 for the CPU count)")
    return n or os.cpu_count() or 1


def get_pool() -> Pool:
    """The process-wide pool, created lazily (size: `pool_size()`, one worker
    per concurrent caller)."""
    global _POOL
    if _POOL is None:
        _POOL = Pool(pool_size())
        atexit.register(close)
    return _POOL


def close() -> None:
    """Stop all worker processes of the shared pool."""
    global _POOL
    if _POOL is not None:
        _POOL.close()
        _POOL = None

