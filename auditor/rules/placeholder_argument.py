r"""A call ran with a template placeholder or a documentation example as an argument value.

## What it does
Reads every string value of every call that ran (got a result, error or not), code included,
for values that stand in for a real one: `YOUR_API_KEY`, `<your-token>`, `API_KEY_HERE`,
`/path/to/file.pdf`, `X` masks inside an id (`2206.XXXXX`), documentation hosts and addresses
(`example.com`, `foo@bar.com`) and, outside code, `{{name}}`, `1234567890` and a value that is
only `TODO` or `YYYY-MM-DD`. Also, outside code, a whole value that says where the value should
come from instead of being it (`result of previous function`, `extracted from TODO list`, `A
determinar (…)`, `à déterminer`), and a word for "no value" (`unknown`, `N/A`, `none`, `?`,
`desconocido`) as the whole value of an identifier's key (`user_id`, `orderId`, `email`). In
code (`python`/`sh` calls, `code`/`command` arguments) comment lines are skipped. Fires once
per call, naming the values, unless a user turn (outside its code blocks) or a tool result gave
that very value earlier. Each value is reported at its first use.

## Why is this bad?
The agent did not have the value, so it ran the call with the example from the documentation.
The call fails at best (`401 Unauthorized`, `FileNotFoundError`) and at worst "succeeds" against
a host that answers anything, and the agent goes on as if it had real data. It should have
asked for the value, looked it up, or said it could not.

## Example
```jsonl
{"id": "api-key", "messages": [{"role": "user", "content": "What is the weather in Oslo?"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "python", "arguments": "{\"code\": \"import requests\\nr = requests.get('https://api.openweathermap.org/data/2.5/weather', params={'q': 'Oslo', 'appid': 'YOUR_API_KEY'})\\nprint(r.json())\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{'cod': 401, 'message': 'Invalid API key.'}"}]}
```

## How to fix
Give the agent the value or a way to get it: credentials from the harness's environment or
secret store (never in the prompt for the model to copy), paths from a listing tool, addresses
from the user. In the prompt: "if you lack a value, ask for it or say you cannot; never call a
tool with an example or a placeholder". In the tool: reject the known placeholders
(`YOUR_API_KEY`, `example.com`, `/path/to/`, `XXXXX`, `N/A` as an id) with an error naming the
argument, so that the call fails loudly instead of succeeding against a host that answers
anything.

## Does not fire on
- a value the user gave or asked about ("Is example.com up?"), or one a tool result returned;
- the word TODO inside free text, `{{…}}` in code (a template it writes), and comments in code
  ("# replace with your key");
- a placeholder word the user's own text holds (outside code blocks), in the plural too:
  "add it to the TODO list" before a call with `list: "TODO"`, "how many TODOs";
- a code marker (`TODO`, `FIXME`, `TBD`, `XXX`, `HACK`) in what a search looks for (an
  argument named `pattern`, `query`, `regex`, `search_term`, …): the thing sought;
- in code, a name the same code binds (`insert_pos = j` before `lines.insert(insert_pos, …)`,
  a loop variable, a parameter): an ordinary variable. A placeholder that is also assigned in
  the code (`YOUR_KEY = "…"`, then used) is missed;
- the content a call saves to a file (`content`, `file_text`, `new_str`, `diff` beside a `path`):
  a placeholder in a file written for later (`API_KEY = "YOUR_API_KEY"` in an app's config,
  `{{ name }}` in a template) is for a person to fill in; running it is what fails. The same
  holds for the here-documents of a shell command that does nothing but save them (`cat
  <<'EOF' > settings.py`, `cat > .env <<EOF`, `tee path <<EOF`, with `mkdir -p`/`cd` around):
  `SECRET_KEY = 'fake-key'` in a throwaway test project. A command that also runs something
  (`… EOF` then `python fetch.py`) is still read, here-documents included, and the path a
  command saves to is read in either case (`cat <<'EOF' > /path/to/config.yaml`). Missed: a
  placeholder saved this way and run by a later call, whose arguments no longer hold it;
- calls that never ran (no result), and values that merely contain `example` or `your`;
- the arguments of a terminal call (`finish`, `submit`, `final_answer`, `attempt_completion`,
  `done`, …): they are the agent's answer to the user, as its reply's text is, and telling the
  user which value to fill in ("replace `/path/to/file` with the real path") is what it should
  do. A placeholder the answer passes off as a real value is missed;
- a "no value" word in free text or a non-identifier (`query: "unknown"`, `status: "unknown"`,
  `text: "Sender unknown"`, `artist_id: "unknown_artist_42"`), and a description of a source
  under a free-text key (`query: "result of previous election"`, a `body` or `title` that
  says what it was extracted from) or inside a longer sentence;
- code in the message that opens the conversation (a multi-agent chat's task statement whose
  code block the executor ran as given): no agent wrote or chose its values. An agent that runs
  that code again later is still reported;
- a `todo` status, and documentation hosts in text a call writes into a file (an editor's
  `file_text` with no path beside it, a here-document): test data, as RFC 2606 intends.
```jsonl
{"id": "user-asked", "messages": [{"role": "user", "content": "Is https://example.com up? Also add a TODO item: call Anna."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "http_get", "arguments": "{\"url\": \"https://example.com\"}"}}, {"id": "c2", "type": "function", "function": {"name": "add_item", "arguments": "{\"text\": \"TODO: call Anna about your docs\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "200 OK"}, {"role": "tool", "tool_call_id": "c2", "content": "added"}]}
{"id": "tool-gave-it", "messages": [{"role": "user", "content": "Send the test invoice."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_test_account", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\"email\": \"user@example.com\"}"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "python", "arguments": "{\"code\": \"# replace YOUR_API_KEY below\\nsend('user@example.com', template='{{invoice}}')\"}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "sent"}]}
```
"""

from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache

from auditor.findings import Violation, excerpt, on_call
from auditor.model import Message
from auditor.reading.arguments import (
    FILE_CONTENT_KEYS,
    WRITTEN_KEYS,
    comment_free,
    heredocs,
    saves_only,
    strings,
    writes_file,
)
from auditor.replay import Exchange, Replay
from auditor.rules import _placeholders
from auditor.rules._toolnames import ends_run, words

REQUIRES = ("calls",)


def screen(replay: Replay, options: None) -> bool:
    """Some call that got a result has arguments that could hold a placeholder: their logged
    text holds one of its hints, or an escape (`"n\\u002fa"` is `n/a`)."""
    answered = [e for e in replay.exchanges if e.result is not None]
    if any(e.call.raw_arguments is None for e in answered):
        return True  # arguments logged parsed: walked by the check
    logged = "\x00".join(e.call.raw_arguments or "" for e in answered)
    return "\\" in logged or _placeholders.possible(logged)


def check(replay: Replay, options: None) -> Iterator[Violation]:
    messages = replay.conversation.messages
    given: set[str] = set()  # placeholders a user or a tool result wrote, as far as read
    read_to = 0
    reported: set[str] = set()
    for exchange in replay.exchanges:
        if exchange.result is None or exchange.turn == 0:
            continue  # never ran, or the task as posed: no agent chose its values
        if ends_run(exchange.call.name):
            continue  # `finish(message=…)`: the answer to the user, read as the reply's text is
        found = [(k, v, t) for k, v, t in _placeholders_of(exchange) if _key(v) not in reported]
        if not found:
            continue
        for message in messages[read_to : exchange.turn]:
            given.update(map(_key, _given_by(message)))
        read_to = max(read_to, exchange.turn)
        fresh = {_key(v): (k, v, t) for k, v, t in found if _key(v) not in given}
        if fresh:
            reported.update(fresh)
            yield _violation(replay, exchange, list(fresh.values()))


def _placeholders_of(exchange: Exchange) -> Iterator[tuple[str, str, str]]:
    """(key, placeholder, the text it sits in) for each placeholder in the call's values."""
    found = list(strings(exchange.call))
    if not _placeholders.possible("\x00".join(value for _, value, _ in found)):
        return  # no value holds a hint of one (keys are not read: `first_name` holds `na`)
    saves = writes_file(exchange.call.arguments)
    for key, value, code in found:
        if saves and key in FILE_CONTENT_KEYS:
            continue  # a file saved for later: a placeholder in it is for a person to fill in
        text = comment_free(value) if code else value
        written = ""
        if key.lower() in WRITTEN_KEYS:
            text, written = "", text
        elif code:
            command = text
            text, written = heredocs(command)
            if written and saves_only(text, command):
                written = ""  # a command that only saves files: as an editor's save (above)
        sought = _sought(key)
        for placeholder in _placeholders.find(text, code):
            if not (sought and placeholder.lower() in _MARKERS):
                yield key, placeholder, text
        for placeholder in _placeholders.find(written, code, written=True):
            yield key, placeholder, written
        stand_in = None if code else _placeholders.filler(key, value)
        if stand_in is not None:
            yield key, stand_in, value


_MARKERS = frozenset(("todo", "fixme", "tbd", "xxx", "hack"))
"""Words code is marked with: what a search looks for (`pattern: "TODO"`), not a value."""
_SEARCH_WORDS = frozenset(("pattern", "query", "q", "regex", "search", "keyword", "keywords"))


@lru_cache(maxsize=1024)
def _sought(key: str) -> bool:
    """The argument holds what a search looks for (`pattern`, `query`, `search_term`)."""
    return bool(_SEARCH_WORDS.intersection(words(key)))


def _given_by(message: Message) -> Iterator[str]:
    if message.result is not None:
        yield from _placeholders.find(message.result.text)
        # a tool that answers `"user_id": "unknown"` gave that value
        words = (w.strip(_PUNCT) for w in message.result.text.split())
        yield from (w for w in words if w.lower() in _placeholders.NO_VALUE)
    elif message.role == "user":
        text = _outside_fences(message.text)
        yield from _placeholders.find(text)
        # the user's own words: "add it to the TODO list" names the list `TODO`, and "how
        # many TODOs" names them too
        for w in (w.strip(_PUNCT) for w in text.split()):
            yield w
            if len(w) > 3 and w[-1] in "sS":
                yield w[:-1]


_PUNCT = ".,:;!?()[]{}<>'\"`*"


def _key(value: str) -> str:
    """Written forms of one value compare equal: case, and a host's subdomains."""
    value = value.lower()
    at = value.find("example.")
    return value[at:] if at > 0 and value[at - 1] in ".@/" else value


def _outside_fences(text: str) -> str:
    """The text without its fenced code blocks: code a user pastes is not a value they give."""
    if "```" not in text:
        return text
    parts = text.split("```")
    return "\n".join(parts[0::2])


def _violation(replay: Replay, exchange: Exchange, found: list[tuple[str, str, str]]) -> Violation:
    call = exchange.call
    key, first, text = found[0]
    if all(k == key for k, _, _ in found):
        values = ", ".join(f"`{v}`" for _, v, _ in found[:3])
        where = f" in `{key}`" if key else ""
    else:
        values = ", ".join(f"`{v}` in `{k}`" if k else f"`{v}`" for k, v, _ in found[:3])
        where = ""
    more = " …" if len(found) > 3 else ""
    one = len(found) == 1
    what, kind = (
        ("the placeholder", "a template value") if one else ("the placeholders", "template values")
    )
    message = (
        f"`{call.name}` ran with {what} {values}{more}{where}: {kind} nobody filled in, "
        "and no user turn or tool result gave it"
    )
    at = text.find(first)
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    fallback = replay.conversation.messages[exchange.turn].location
    violation = on_call(message, call, exchange.turn, fallback)
    return replace(violation, evidence=excerpt(line))
