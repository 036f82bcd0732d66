"""Campaign throughput, measured (issue 20 item 6): `vecz-fuzz throughput`.

Runs a campaign of `count` seeds and reports kernel-configurations (oracle
results) per second of wall-clock time per job, and per CPU second of the
campaign's processes (the parent and its oracle workers). On a machine
shared with other work the wall-clock figure falls with the load; the CPU
figure is what one core, given to the campaign alone, would do. Where that
CPU time went comes with it: the workers' time per kind of request
(oracle/request_cpu.py), the parent's (generation, case parsing, the
comparisons, IPC), and the workers' time between requests (the garbage
collection a worker does after answering, when it ends before the next
request is sent; a worker's start-up counts in its first request).
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass, field
from typing import Any

from .campaign import Campaign, Spec


@dataclass
class Throughput:
    """One measurement."""

    seeds: int
    configurations: int
    jobs: int
    wall_seconds: float
    cpu_seconds: float  # parent and workers, user + system
    worker_restarts: int
    parent_cpu_seconds: float = 0.0
    # request kind -> (requests, CPU seconds in the worker)
    by_request: dict[str, tuple[int, float]] = field(default_factory=dict)

    @property
    def per_core_wall(self) -> float:
        """Configurations per wall-clock second per job."""
        return self.configurations / self.wall_seconds / self.jobs if self.wall_seconds > 0 else 0.0

    @property
    def per_cpu_second(self) -> float:
        """Configurations per CPU second of the campaign's processes."""
        return self.configurations / self.cpu_seconds if self.cpu_seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        """JSON form for `--json`."""
        return {"seeds": self.seeds, "configurations": self.configurations, "jobs": self.jobs,
                "wall_seconds": round(self.wall_seconds, 2), "cpu_seconds": round(self.cpu_seconds, 2),
                "per_core_wall": round(self.per_core_wall, 2), "per_cpu_second": round(self.per_cpu_second, 2),
                "worker_restarts": self.worker_restarts,
                "parent_cpu_seconds": round(self.parent_cpu_seconds, 2),
                "worker_cpu_by_request": {op: {"requests": n, "cpu_seconds": round(sec, 2)}
                                          for op, (n, sec) in sorted(self.by_request.items())}}

    def breakdown(self) -> str:
        """Where the CPU time went, one readable line: per request kind its
        count, mean and total; the parent; the workers between requests."""
        parts = [f"{op} {n} x {1000 * sec / n:.0f} ms = {sec:.1f} s" if n else f"{op} 0"
                 for op, (n, sec) in sorted(self.by_request.items())]
        rest = self.cpu_seconds - self.parent_cpu_seconds - sum(sec for _, sec in self.by_request.values())
        parts += [f"parent {self.parent_cpu_seconds:.1f} s", f"between requests {max(0.0, rest):.1f} s"]
        return "CPU: " + ", ".join(parts)

    def line(self) -> str:
        """One readable line."""
        return (f"{self.seeds} kernels, {self.configurations} kernel-configurations at {self.jobs} job(s): "
                f"{self.per_core_wall:.1f} per second per job ({self.wall_seconds:.0f}s wall), "
                f"{self.per_cpu_second:.1f} per CPU second ({self.cpu_seconds:.0f} CPU s); "
                f"{self.worker_restarts} worker restart(s)")


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def measure(spec: Spec, seed: int, count: int, jobs: int) -> Throughput:
    """Run the campaign with fresh oracle workers; its throughput. The
    workers are stopped (and so counted in the CPU time) before it returns."""
    import oracle
    from oracle import request_cpu, worker

    from .stability import fresh_oracle

    fresh_oracle()
    me0, kids0, t0 = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN), time.monotonic()
    with request_cpu.accounting() as by_op:
        camp = Campaign(spec, seed=seed, count=count, jobs=jobs, progress=False)
        report = camp.run()
    wall = time.monotonic() - t0
    pool = worker._POOL
    restarts = sum(w.restarts for w in pool._all) if pool is not None else 0
    oracle.close()  # reaps the workers: their CPU time is in RUSAGE_CHILDREN from now on
    me = _cpu(resource.RUSAGE_SELF) - me0
    total = me + _cpu(resource.RUSAGE_CHILDREN) - kids0
    return Throughput(report.seeds, report.configurations, jobs, wall, total, restarts, me,
                      {op: (acc.requests, acc.seconds) for op, acc in by_op.items()})
