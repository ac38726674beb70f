"""The `audit` command and `python -m auditor`.

`audit --version` (`VERSION_FLAG`) is answered here, and a plain run (`audit PATHS…` with the
options of a run, `cli/fast.py`) is read here, before typer builds the command line: typer
costs tens of milliseconds that a version check, a pre-commit hook or a small file's audit
should not pay.
"""

import gc
import sys

from auditor import VERSION, VERSION_FLAG

GC_THRESHOLDS = (50_000, 20, 10)
"""CPython's cyclic collector looks at every object a run holds once the young generations
have filled a few times (700 x 10 x 10 allocations by default), and a large JSON document's
tree of objects is held for as long as it is read: its reading then grew faster than the
document (a 14 MB AutoGen message list read in 1.54 s, 0.42 s with the collector off, while
the instructions of the reading alone grew 4x for 4x). Collecting less often leaves the
cycles a run makes (few) a little longer and reads it in 0.58 s (docs/performance.md)."""


def main() -> None:
    gc.set_threshold(*GC_THRESHOLDS)  # worker processes are forked with it
    if sys.argv[1:] == [VERSION_FLAG]:
        print(VERSION)
        return
    from auditor.cli import fast

    fast.run(sys.argv[1:])  # returns only when typer is to read the arguments
    from auditor.cli import main as cli

    cli()


if __name__ == "__main__":
    main()
