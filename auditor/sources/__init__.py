"""Sources: the paths a user names, turned into records (one JSON value or text, and where it
came from).

- `kinds`: the types this stage hands on (a leaf);
- `walk`: discovery, the paths walked into sources (`discover`, `Exclude`);
- `framing`: the bytes of one source cut into records (`read`), a JSON Lines file cut into
  spans for `--jobs` (`split`);
- `files`: the regular-file check (and bound) for every file opened by name;
- `archives`: Inspect `.eval` zips, member by member; `gitignore`: the walk's `.gitignore`
  rules; `remote`: URLs, read through fsspec (only when one is named).
"""

from auditor.sources.files import read_regular
from auditor.sources.framing import (
    bounded_lines,
    cuts,
    getsize,
    open_binary,
    parse_document,
    read,
    read_lines,
    read_only,
    split,
    too_large,
)
from auditor.sources.kinds import (
    ARCHIVE_SUFFIXES,
    DOCUMENT_SUFFIXES,
    JSONL_SUFFIXES,
    MAX_RECORD_BYTES,
    STDIN,
    TEXT_SUFFIXES,
    Excluded,
    Found,
    Ignored,
    InvalidRecord,
    Kind,
    Linked,
    PathError,
    ReadError,
    Record,
    Skipped,
    Source,
    Span,
    is_url,
    kind_of,
    os_reason,
)
from auditor.sources.walk import Exclude, discover

__all__ = [
    "ARCHIVE_SUFFIXES",
    "DOCUMENT_SUFFIXES",
    "JSONL_SUFFIXES",
    "MAX_RECORD_BYTES",
    "STDIN",
    "TEXT_SUFFIXES",
    "Exclude",
    "Excluded",
    "Found",
    "Ignored",
    "InvalidRecord",
    "Kind",
    "Linked",
    "PathError",
    "ReadError",
    "Record",
    "Skipped",
    "Source",
    "Span",
    "bounded_lines",
    "cuts",
    "discover",
    "getsize",
    "is_url",
    "kind_of",
    "open_binary",
    "os_reason",
    "parse_document",
    "read",
    "read_lines",
    "read_only",
    "read_regular",
    "split",
    "too_large",
]
