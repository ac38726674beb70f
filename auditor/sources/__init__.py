"""Sources: the paths a user names, turned into records (one JSON value or text, and where it
came from).

- `kinds`: the types this stage hands on (a leaf);
- `walk`: discovery, the paths walked into sources (`discover`, `Exclude`);
- `framing`: the bytes of one source cut into records (`read`); `spans`: a JSON Lines file
  cut into spans of whole lines for `--jobs` (`split`);
- `files`: the regular-file check (and bound) for every file opened by name;
- `archives`: Inspect `.eval` zips, member by member; `gitignore`: the walk's `.gitignore`
  rules; `remote`: URLs, read through fsspec (only when one is named).
"""

from auditor.sources.files import read_regular
from auditor.sources.framing import (
    bounded_lines,
    getsize,
    head,
    open_binary,
    opens_json,
    parse_document,
    read,
    read_lines,
    read_only,
    too_large,
)
from auditor.sources.kinds import (
    ARCHIVE_SUFFIXES,
    DOCUMENT_SUFFIXES,
    HEAD_BYTES,
    JSONL_SUFFIXES,
    MAX_RECORD_BYTES,
    SNIFF_SUFFIXES,
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
    walked_kind,
)
from auditor.sources.spans import cuts, cuttable, may_split, split
from auditor.sources.walk import Exclude, discover

__all__ = [
    "ARCHIVE_SUFFIXES",
    "DOCUMENT_SUFFIXES",
    "HEAD_BYTES",
    "JSONL_SUFFIXES",
    "MAX_RECORD_BYTES",
    "SNIFF_SUFFIXES",
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
    "cuttable",
    "discover",
    "getsize",
    "head",
    "is_url",
    "kind_of",
    "may_split",
    "open_binary",
    "opens_json",
    "os_reason",
    "parse_document",
    "read",
    "read_lines",
    "read_only",
    "read_regular",
    "split",
    "too_large",
    "walked_kind",
]
