"""What the loop rules (LP001-LP005) share: their options, "the same call", outcomes, neutral calls.

A loop is the agent doing the same thing again and getting the same answer: nothing it could
see changed. The ideas that recur in every LP rule are decided here once:

- the same call is the tool name plus its arguments compared by meaning (`canonical.key`), so
  repeats that differ only in whitespace or key order are repeats;
- a *neutral* call (tau-bench's `think`, which only lets the model think aloud and always
  returns nothing) or a call of an exempt tool is transparent: it neither counts nor breaks
  a run;
- a successful call of another tool may have changed the world (an edit before a test is
  re-run, a setting toggled by the user before a speed test), so it ends a run of repeats;
  failed calls, user messages and calls of tools whose name says they only read (`get_*`,
  `search_*`, `calculate`, `Read`, `Grep`, `browser_get_state`…) do not;
- a read that answers otherwise than the same read did before (`Observations`; digit-bearing
  tokens masked, since a page renumbers its elements at every render) shows the world moved;
  a read's answer in a cycle is compared with the same mask;
- a relative move (`browser_go_back`, a scroll) answered by a one-line acknowledgment reaches
  another state each time (`progresses`), and a cycle with a move in it is progress.

Calls whose outcome the log does not keep (a browser agent's actions, `ToolResult.unrecorded`)
are compared apart (`_blind.py`): only the same actions one right after the other, with nothing
between them (no other call, no recorded result, no user turn), and never actions that move
through content (a scroll, `back`, `PageDown`), which repeat as progress.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from fnmatch import fnmatchcase
from functools import lru_cache

import orjson

from auditor.canonical import key
from auditor.common.patterns import lazy
from auditor.common.structs import dataclass
from auditor.findings import Severity, Violation, excerpt, on_call
from auditor.model import ToolCall
from auditor.replay import Exchange, Replay
from auditor.rules._toolnames import reads_only, words

NEUTRAL_TOOLS = ("think",)
"""Tools that only record the model's thoughts: never a repeat, never a break."""


@dataclass(frozen=True)
class Options:
    """Options of the loop rules, `[tool.auditor.loops]` in the configuration."""

    min_repeats: int = 3
    """How many times the same thing must happen before it is a loop (LP001-LP004)."""
    exempt_tools: tuple[str, ...] = ()
    """Glob patterns of tools whose repeats are expected, such as `poll_*` or `wait_for_*`
    (LP001-LP003, LP005). Their calls are transparent: they neither count nor end a run."""


def transparent(name: str, options: Options) -> bool:
    """A neutral or exempt tool: its calls neither count as repeats nor end a run."""
    return _matches(name, options.exempt_tools)


@lru_cache(maxsize=4096)  # a log calls a handful of tools, many times each
def _matches(name: str, exempt: tuple[str, ...]) -> bool:
    return any(fnmatchcase(name, p) for p in (*NEUTRAL_TOOLS, *exempt))


def calls(replay: Replay, options: Options) -> list[Exchange]:
    """Every answered call that is not transparent, in the order made, whoever made it
    (computed once per replay for the five rules)."""
    return replay.shared(("loops.calls", options), lambda r: _calls(r, options))


def _calls(replay: Replay, options: Options) -> list[Exchange]:
    # A call whose outcome the log does not keep (`ToolResult.unrecorded`) is left out: two
    # equal scrolls of a browser agent are progress down a page, two equal clicks may be paging
    # or a stuck button, and only what came of them (which the log lacks) would tell.
    return [
        e
        for e in replay.exchanges
        if e.result is not None
        and not e.result.unrecorded
        and not transparent(e.call.name, options)
    ]


def repeated(replay: Replay, options: Options) -> list[tuple[int, int]]:
    """(calls, turns) of each call of the agent made `min_repeats` times or more with the same
    arguments (`call_key`) and the same outcome: a run of repeats (LP001) or a cycle (LP003)
    is made of such calls only. Most conversations have none; keys are computed only for the
    tools called that often, outcomes only for the keys made that often."""
    return replay.shared(("loops.repeated", options), lambda r: _repeated(r, options))


def _repeated(replay: Replay, options: Options) -> list[tuple[int, int]]:
    least = options.min_repeats
    by_name: dict[str, list[Exchange]] = {}
    for e in calls(replay, options):
        if e.caller == "assistant":
            by_name.setdefault(e.call.name, []).append(e)
    by_key: dict[str, list[Exchange]] = {}
    for made in by_name.values():
        if len(made) >= least:
            for e in made:
                by_key.setdefault(call_key(e.call), []).append(e)
    found = []
    for made in by_key.values():
        if len(made) >= least:
            groups: dict[tuple[bool, str], list[int]] = {}
            for e in made:
                groups.setdefault(_seen(e), []).append(e.turn)
            found += [(len(t), len(set(t))) for t in groups.values() if len(t) >= least]
    return found


def call_key(call: ToolCall) -> str:
    """Equal for two calls of the same tool with arguments equal in meaning."""
    raw = call.raw_arguments
    if call.arguments is None:
        return f"{call.name}\x1f{raw}"  # not JSON: the text itself
    if raw is not None and raw.strip() and len(raw) <= _CACHED_RAW:
        # Five rules ask for the same calls' keys: short logged texts key a small cache.
        return _raw_key(call.name, raw)
    return f"{call.name}\x1f{key(call.arguments)}"


_CACHED_RAW = 2_000  # longer arguments (a file's content) are keyed afresh, not kept


@lru_cache(maxsize=8192)
def _raw_key(name: str, raw: str) -> str:
    return f"{name}\x1f{key(orjson.loads(raw))}"


def outcome(exchange: Exchange) -> tuple[bool, str]:
    """Whether the call failed, and its result with whitespace runs collapsed."""
    text = exchange.result.text if exchange.result is not None else ""
    return exchange.failed, _collapsed(text) if len(text) <= _CACHED_RAW else " ".join(text.split())


@lru_cache(maxsize=4096)  # LP001 and LP003 compare the same results
def _collapsed(text: str) -> str:
    return " ".join(text.split())


def same_outcome(a: Exchange, b: Exchange) -> bool:
    """Both failed or both did not, with results equal once whitespace runs are collapsed."""
    if a.failed != b.failed:
        return False
    ta = a.result.text if a.result is not None else ""
    tb = b.result.text if b.result is not None else ""
    if ta == tb:
        return True
    if _solid(ta) != _solid(tb):
        return False  # different text, not only different spacing: no need to collapse
    return outcome(a) == outcome(b)


def _solid(text: str) -> int:
    """How many characters are not spacing."""
    return len(text) - sum(map(text.count, " \n\t\r"))


def breaks(exchange: Exchange) -> bool:
    """A successful call of a tool that may write: it may change what a repeated call sees."""
    return not exchange.failed and not reads_only(exchange.call.name)


class Observations:
    """What the agent's reads answered, to tell when the world they look at changed.

    A read (`browser_get_state`, `get_order`) made again that answers otherwise than it did the
    time before (once digit-bearing tokens are masked: a page's element numbers are renumbered
    at each render) shows that something changed since. `changed_after(i)` is then true for
    every position `i` before that read. One dict entry per distinct read; each answer is
    compared once with the one before it.
    """

    def __init__(self) -> None:
        self._last: dict[str, tuple[str, str | None]] = {}
        self._changed_at = -1

    def add(self, position: int, exchange: Exchange) -> None:
        if exchange.failed or not reads_only(exchange.call.name):
            return
        key = call_key(exchange.call)
        text = exchange.result.text if exchange.result is not None else ""
        before = self._last.get(key)
        if before is None or before[0] == text:
            self._last[key] = (text, before[1] if before is not None else None)
            return
        masked = masked_values(text)
        earlier = before[1] if before[1] is not None else masked_values(before[0])
        if masked != earlier:
            self._changed_at = position
        self._last[key] = (text, masked)

    def changed_after(self, position: int) -> bool:
        """A read made after `position` answered otherwise than the same read before it."""
        return self._changed_at > position


def masked_values(text: str) -> str:
    """The text with its digit-bearing tokens (ids, counts, element numbers) masked."""
    return _DIGIT_TOKEN.sub("<n>", text)


# Digits-bearing tokens (ids, amounts, dates, flight numbers) and quoted values vary between
# attempts while the error stays the same; only a bounded prefix is normalised, so these
# simple patterns stay linear on hostile text.
QUOTED = lazy(r"\"[^\"\n]*\"|(?<!\w)'[^'\n]*'(?!\w)|`[^`\n]*`|“[^”\n]*”")
_DIGIT_TOKEN = lazy(r"(?<!\S)(?=[^\s\d]*\d)\S+")
"""A whole token (a run of non-space) holding a digit: looked ahead of at each token's start
only, up to its first digit or its end, so one pass stays linear."""
_ERROR_PREFIX = 400
_TRACEBACK = "Traceback (most recent call last)"
_EXCEPTION = lazy(r"^[\w.]{0,100}(?:Error|Exception)\b[^\n]{0,300}", re.MULTILINE)
_TAIL = 4_000  # the exception line closes the traceback: only its end is searched


def normalised_error(text: str) -> str:
    """An error message with the values that vary between attempts masked.

    A Python traceback is its last exception line (`KeyError: 'transcript'`): the frames above
    it quote the code, which the agent rewrites at every attempt.
    """
    if _TRACEBACK in text:
        found = _EXCEPTION.findall(text[-_TAIL:])
        if found:
            text = found[-1]
    text = QUOTED.sub("<v>", text[:_ERROR_PREFIX].lower())
    return _DIGIT_TOKEN.sub("<n>", text)


def runs(
    items: Iterable[Exchange], same: Callable[[Exchange, Exchange], bool]
) -> Iterator[list[Exchange]]:
    """Maximal stretches of consecutive items where each is `same` as the one before."""
    run: list[Exchange] = []
    for item in items:
        if run and not same(run[-1], item):
            yield run
            run = []
        run.append(item)
    if run:
        yield run


PERIODS = (2, 3, 4, 5)
"""Cycles of two to five different calls (LP003): list, copy (failing), check, ask for help, and
again, is as stuck as alternating two calls."""


@dataclass(frozen=True, slots=True)
class Cycle:
    """Calls of two to five different kinds repeating in the same order with the same results."""

    calls: list[Exchange]
    period: int
    passes: int
    tail: list[Exchange]
    """The calls after the last full pass that begin another one (the click at the end of a
    click, get-state, click, get-state… loop): LP001 leaves them to the cycle too."""


def cycles(replay: Replay, options: Options) -> list[Cycle]:
    """Every cycle of the agent's calls, repeated `min_repeats` full passes or more (LP003;
    LP001 leaves their calls to it)."""
    made = calls(replay, options)
    steps = [(e.caller, call_key(e.call), _seen(e)) for e in made]
    return _cycles_in(made, steps, options.min_repeats, _moving)


def _seen(exchange: Exchange) -> tuple[bool, str]:
    """What a call answered, as a cycle compares it: a read's answer with its digit-bearing
    tokens masked (a page renumbers its elements at every render), any other call's exactly."""
    failed, text = outcome(exchange)
    if failed or not reads_only(exchange.call.name):
        return failed, text
    return failed, masked_values(text)


def _cycles_in(
    made: list[Exchange],
    steps: list[tuple],
    min_passes: int,
    skip: Callable[[list[Exchange]], bool] | None = None,
) -> list[Cycle]:
    """The cycles of `made` (as `steps` compare them), left to right; a cycle whose first pass
    `skip` rejects is not one."""
    found = []
    start = 0
    while start < len(made):
        cycle = _cycle(steps, start, min_passes)
        if cycle is None:
            start += 1
            continue
        period, passes, end = cycle
        if skip is not None and skip(made[start : start + period]):
            # Every start up to the last that leaves `min_passes` passes finds the same calls in
            # another order, which `skip` rejects alike: jump past them (no rescanning).
            start = max(start + 1, end - period * min_passes + 1)
            continue
        full = start + period * passes
        found.append(Cycle(made[start:full], period, passes, made[full:end]))
        start = full
    return found


def _cycle(steps: list[tuple], start: int, min_passes: int) -> tuple[int, int, int] | None:
    """The period and number of full passes of a cycle of agent calls starting at `start`, and
    where its repetition ends (after a last partial pass)."""
    for period in PERIODS:
        head = steps[start : start + period]
        if len(head) < period or any(s[0] != "assistant" for s in head):
            continue
        if len({s[1] for s in head}) < period:
            continue  # a cycle of different calls: one call repeated is LP001
        end = start + period
        while end < len(steps) and steps[end] == steps[end - period]:
            end += 1
        passes = (end - start) // period
        if passes >= min_passes:
            return period, passes, end
    return None


def attempts(run: Iterable[Exchange]) -> int:
    """How many turns a run spans: parallel calls of one turn are one attempt, not a retry
    (Claude Code cancels a failed call's siblings with one shared error)."""
    return len({e.turn for e in run})


def in_order(found: Iterable[list[Exchange]], made: list[Exchange]) -> list[list[Exchange]]:
    """Runs sorted by where their first call sits in `made`."""
    position = {id(e): i for i, e in enumerate(made)}
    return sorted(found, key=lambda run: position[id(run[0])])


def at_call(
    replay: Replay, exchange: Exchange, message: str, severity: Severity | None = None
) -> Violation:
    """A finding about a run of calls, placed at the call that starts it."""
    fallback = replay.conversation.messages[exchange.turn].location
    return on_call(message, exchange.call, exchange.turn, fallback, severity)


def turns(items: Iterable[int], limit: int = 8) -> str:
    """`turns 30, 34, 38`; long lists are cut with `…`."""
    numbers = list(dict.fromkeys(items))
    shown = ", ".join(str(n) for n in numbers[:limit])
    more = ", …" if len(numbers) > limit else ""
    return f"turn{'s' if len(numbers) > 1 else ''} {shown}{more}"


def quote(text: str, limit: int = 80) -> str:
    """Log text as a short inline-code excerpt for a message."""
    shown = excerpt(text, limit).replace("`", "'")
    return f"`{shown}`" if shown else "an empty result"


def _moving(calls: list[Exchange]) -> bool:
    return any(moves(e.call) for e in calls)


_MOVE_WORDS = """
    scroll scrolled wheel swipe back forward next previous prev page pagedown pageup down up
    left right arrowdown arrowup arrowleft arrowright tab space wait sleep pause
"""
_MOVES = frozenset(_MOVE_WORDS.split())
"""Words of an action that moves through content or time: repeated, it makes progress."""


ACKNOWLEDGEMENT = 80
"""Longest one-line result read as a move's acknowledgement ("Navigated back")."""


def progresses(exchange: Exchange) -> bool:
    """A move (`moves`) that succeeded with a result that only acknowledges it: one line, at
    most `ACKNOWLEDGEMENT` characters, no address (`Navigated back`, `Scrolled down`). Repeated
    with the same arguments it reaches a new place each time, and the result does not say
    which: equal outcomes do not show the agent stuck."""
    result = exchange.result
    if result is None or exchange.failed or not moves(exchange.call):
        return False
    text = result.text.strip()
    return len(text) <= ACKNOWLEDGEMENT and "\n" not in text and "://" not in text


def moves(call: ToolCall) -> bool:
    """The action scrolls, pages, goes back or forward, presses a movement key, or waits: its
    name or a one-word argument says so (`scroll`, `navigate_back`, `press` `PageDown`)."""
    parts = set(words(call.name))
    if isinstance(call.arguments, dict):
        values = (v for v in call.arguments.values() if isinstance(v, str) and len(v) <= 20)
        parts.update(v.lower().replace("_", "") for v in values if " " not in v)
    return not parts.isdisjoint(_MOVES)
