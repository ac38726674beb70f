"""Valid JSON of no known log shape, or part of a log that does not have its expected shape.

## What it does
Reports a record that parses as JSON but matches none of the formats the auditor reads, and
each part of a recognised record that cannot be read (a message that is not an object, a
message without a role, a tool call that is not an object).

## Why is this bad?
An unrecognised record is never audited. Dropping it silently would let an empty report pass
for a clean log; naming it tells you to force a format with `--input-format` or to report
the shape as missing.

## Example
```jsonl
{"event": "heartbeat", "ts": 1718000000}
{"messages": [{"role": "user", "content": "hi"}, "not a message"]}
```

## How to fix
If the record is a log the auditor reads, name its format with `--input-format NAME` (`audit
--formats` lists them): the finding then says which part lacks the expected shape. A shape of
your own can be mapped in `[tool.auditor.formats.NAME]` with JMESPath expressions (docs/formats.md)
or read by a plugin. Records that are not transcripts (heartbeats, metrics) belong in another
file or outside the audited paths (`exclude`). A message without a role, or a tool call that is
not an object, is a bug of the logger that wrote it.

## Does not fire on
Any shape listed in `--input-format`, including a bare list of messages.
```jsonl
[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}]
```
"""
