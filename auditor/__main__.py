"""The `audit` command and `python -m auditor`.

`audit --version` (`VERSION_FLAG`) is answered here, and a plain run (`audit PATHS…` with the
options of a run, `cli/fast.py`) is read here, before typer builds the command line: typer
costs tens of milliseconds that a version check, a pre-commit hook or a small file's audit
should not pay.
"""

import sys

from auditor import VERSION, VERSION_FLAG


def main() -> None:
    if sys.argv[1:] == [VERSION_FLAG]:
        print(VERSION)
        return
    from auditor.cli import fast

    fast.run(sys.argv[1:])  # returns only when typer is to read the arguments
    from auditor.cli import main as cli

    cli()


if __name__ == "__main__":
    main()
