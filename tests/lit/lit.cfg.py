# ruff: noqa: F821  (lit injects `config` and `lit_config`)
# lit configuration for the IR-level tests: each .ll file runs `veczc` and
# checks its output with FileCheck (the `filecheck` package from PyPI).
import os
import shutil
import sys

import lit.formats

config.name = "vecz-py"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".ll"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["Inputs", "Output"]

bindir = os.path.dirname(sys.executable)


def _tool(name):
    path = shutil.which(name, path=bindir + os.pathsep + os.environ.get("PATH", ""))
    if path is None:
        lit_config.fatal(f"cannot find {name}: install the project with its dev extra")
    return path


config.substitutions.append(("%veczc", _tool("veczc")))
config.substitutions.append(("FileCheck", _tool("filecheck")))
config.substitutions.append(("%not", _tool("not") if shutil.which("not") else "! "))
config.environment["PATH"] = bindir + os.pathsep + os.environ.get("PATH", "")
config.environment.pop("VECZ_CHOICES", None)
