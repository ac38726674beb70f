"""A line or document that is not valid JSON, or not valid UTF-8.

## What it does
Reports each JSON Lines line, JSON document or text transcript that cannot be read, with the
reason and the column where reading stopped. The rest of the input is still audited.

## Why is this bad?
A record that cannot be read is a conversation nobody audited. Truncated last lines (an agent
killed mid-write), two records on one line, a stray byte from a bad encoding: each hides
whatever went wrong in that conversation, and an audit that skipped it silently would look
clean.

## Example
```jsonl
{"messages": [{"role": "user", "content": "hi"}]}
{"messages": [{"role": "user", "content": "cut off
```

## How to fix
The reason and the column say where reading stopped. A last line cut off is a process killed
mid-write: have the logger write each record whole (one `json.dumps(record) + "\\n"` per write,
flushed; or write to a temporary file and rename it) and close the log when a run times out.
Two records on one line come from a writer that left out the newline; bytes that are not UTF-8,
from a logger that wrote another encoding (open the file with `encoding="utf-8"`). A record
that cannot be mended can be moved out of the audited paths; IN001 cannot be turned off, only
lowered (`severity = { IN001 = "note" }`).

## Does not fire on
Blank lines, a UTF-8 byte order mark, Windows line endings, or a `.json` file that holds
JSON Lines (it is read line by line).
```jsonl
{"messages": [{"role": "user", "content": "hi"}]}

{"messages": [{"role": "user", "content": "hello"}]}
```
"""
