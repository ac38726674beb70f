"""The `audit` command and `python -m auditor`.

`audit --version` is answered here, before the command line is built: typer costs a hundred
milliseconds or more that a version check should not pay.
"""

import sys

from auditor import VERSION


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        print(VERSION)
        return
    from auditor.cli import main as cli

    cli()


if __name__ == "__main__":
    main()
