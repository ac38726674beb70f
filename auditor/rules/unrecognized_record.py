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

## Does not fire on
Any shape listed in `--input-format`, including a bare list of messages.
```jsonl
[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello!"}]
```
"""
