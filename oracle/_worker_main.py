"""`python -m oracle._worker_main`: a worker process (see oracle.worker).

A module of its own: running `-m oracle.worker` would execute a module the
package has already imported (runpy warns, and the warning would hide the
real cause in crash reports)."""

from oracle.worker import serve

serve()
