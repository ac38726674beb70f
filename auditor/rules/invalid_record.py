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

## Does not fire on
Blank lines, a UTF-8 byte order mark, Windows line endings, or a `.json` file that holds
JSON Lines (it is read line by line).
```jsonl
{"messages": [{"role": "user", "content": "hi"}]}

{"messages": [{"role": "user", "content": "hello"}]}
```
"""
