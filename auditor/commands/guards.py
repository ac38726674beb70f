"""What a run checks before it reads or writes anything: that no output destroys what the run
reads or goes where its name does not say (`refuse_to_overwrite`), and whether the
configuration it found lies beside the logs rather than where it runs (`found_beside_the_logs`).
A checkout under audit is untrusted input: `docs/reliability.md` states what these guarantee.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from auditor.common.errors import ConfigError
from auditor.sources.files import inside

if TYPE_CHECKING:
    from auditor.config import Settings


def refuse_to_overwrite(
    planned: Sequence[object],
    chosen: Settings | None,
    outputs: Iterable[str | None],
    write_baseline: str | None = None,
    baseline: str | None = None,
) -> None:
    """An output (`-o`, each of `outputs` that is a file) or `--write-baseline FILE` naming a
    log this run reads would destroy it (and an output naming the `baseline` it reads, the
    configuration or the tools file, or two outputs naming one file, would lose one of them);
    one that is a symbolic link would write wherever the link leads (a checkout under audit may
    hold `report.html -> ~/.bashrc`); one whose directory does not exist would fail after the
    whole audit: stop before anything is read or written."""
    from auditor import sources

    logs = {
        identity(item.path): item.path
        for item in planned
        if isinstance(item, sources.Source) and item.path != "-"
    }
    if chosen is not None:
        for own in (chosen.config_file, chosen.tools_file):
            if own:
                logs[identity(own)] = own
    written = [("-o", path) for path in outputs if path is not None]
    if write_baseline is not None:
        written.append(("--write-baseline", write_baseline))
    for option, path in written:
        if identity(path) in logs:
            raise ConfigError(
                f"{option} {path} would overwrite {logs[identity(path)]}, which this run "
                "reads: write it somewhere else"
            )
    seen: dict[tuple[int, int] | str, str] = {}
    for option, path in written:
        if baseline is not None and option == "-o" and identity(path) == identity(baseline):
            raise ConfigError(f"-o {path} would overwrite the baseline this run reads")
        if identity(path) in seen:
            both = (
                "two outputs"
                if option == seen[identity(path)]
                else f"{seen[identity(path)]} and {option}"
            )
            raise ConfigError(f"{both} name the same file {path}")
        seen[identity(path)] = option
    for option, path in written:
        writable(option, path)


def refuse_to_overwrite_sides(output: str | None, sides: Iterable[str]) -> None:
    """`audit compare -o FILE` naming a side it reads (a log, or a report) would destroy it."""
    for side in sides:
        if output is not None and side != "-" and identity(output) == identity(side):
            raise ConfigError(f"-o {output} would overwrite {side}, which this comparison reads")


def identity(path: str) -> tuple[int, int] | str:
    """What makes two paths the same file: device and inode when it exists (links, `./a`
    and `a` alike), else the path with its links resolved."""
    try:
        st = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    return (st.st_dev, st.st_ino)


def writable(option: str, path: str) -> None:
    """The file `option` names can be written as itself: not through a symbolic link to a
    regular file or to nothing (a device or FIFO, `/dev/stdout`, is written in place), and
    in a directory that exists."""
    if os.path.islink(path):
        try:
            mode = os.stat(path).st_mode
        except OSError:
            mode = 0
        if not mode or stat.S_ISREG(mode):
            raise ConfigError(
                f"{option} {path} is a symbolic link (to {os.readlink(path)}): not written "
                "through; name the file itself"
            )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ConfigError(f"{option} {path}: no directory {os.path.dirname(path) or '.'}")


def found_beside_the_logs(chosen: Settings, named: str | None) -> str:
    """A line naming the configuration file the run found, when it lies neither in the
    working directory nor above it (`logs/.auditor.toml` in a checkout under audit, where it
    could lower the gate without a word); empty otherwise. A file `named` with --config is the
    user's own choice and needs no line."""
    found = chosen.config_file
    if not found or named:
        return ""
    folder = os.path.dirname(os.path.realpath(found))
    if inside(os.path.realpath(os.getcwd()), folder):
        return ""
    return f"settings from {found}, found beside the logs (--isolated reads none)"
