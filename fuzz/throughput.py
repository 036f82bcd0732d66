"""Campaign throughput, measured (issue 20 item 6): `vecz-fuzz throughput`.

Runs a campaign of `count` seeds and reports kernel-configurations (oracle
results) per second of wall-clock time per job, and per CPU second of the
campaign's processes (the parent and its oracle workers). On a machine
shared with other work the wall-clock figure falls with the load; the CPU
figure is what one core, given to the campaign alone, would do.
"""

from __future__ import annotations

import resource
import time
from dataclasses import dataclass
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
                "worker_restarts": self.worker_restarts}

    def line(self) -> str:
        """One readable line."""
        return (f"{self.seeds} kernels, {self.configurations} kernel-configurations at {self.jobs} job(s): "
                f"{self.per_core_wall:.1f} per second per job ({self.wall_seconds:.0f}s wall), "
                f"{self.per_cpu_second:.1f} per CPU second ({self.cpu_seconds:.0f} CPU s); "
                f"{self.worker_restarts} worker restart(s)")


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def measure(spec: Spec, seed: int, count: int, jobs: int) -> Throughput:
    """Run the campaign with fresh oracle workers; its throughput. The
    workers are stopped (and so counted in the CPU time) before it returns."""
    import oracle
    from oracle import worker

    from .stability import fresh_oracle

    fresh_oracle()
    cpu0, t0 = _cpu(), time.monotonic()
    camp = Campaign(spec, seed=seed, count=count, jobs=jobs, progress=False)
    report = camp.run()
    wall = time.monotonic() - t0
    pool = worker._POOL
    restarts = sum(w.restarts for w in pool._all) if pool is not None else 0
    oracle.close()  # reaps the workers: their CPU time is in RUSAGE_CHILDREN from now on
    return Throughput(report.seeds, report.configurations, jobs, wall, _cpu() - cpu0, restarts)
