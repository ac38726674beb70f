"""Where one core's time goes, in process: decode, model, replay, and each rule family.

Printed by `make bench` after the whole-process figures (BENCH_STAGES=0 skips it), or alone:
`python bench/stages.py LOG.jsonl`. Each stage is timed by running the pipeline up to it over
the whole file, the best of BENCH_RUNS runs; the rules are timed inside one real engine run
by wrapping each rule's `check` (and `screen`, when it has one) with a clock, so a slow rule
shows up under its family the day it lands. The floor is orjson parsing every line and every
arguments string of the same file, in the same process.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from auditor import config, engine, sources  # noqa: E402
from auditor.formats import FileReader  # noqa: E402
from auditor.model import Conversation, validate  # noqa: E402
from auditor.replay import ApprovalOptions, replay  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "3"))


def floor(path: Path) -> float:
    """orjson parsing every line, and the arguments string of every call of an OpenAI chat
    record (the bench's log): what reading the log at all costs."""
    start = time.process_time()
    loads = orjson.loads
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                value = loads(line)
                if type(value) is dict and type(value.get("messages")) is list:
                    for message in value["messages"]:
                        for call in message.get("tool_calls") or ():
                            arguments = call.get("function", {}).get("arguments")
                            if isinstance(arguments, str):
                                with contextlib.suppress(orjson.JSONDecodeError):
                                    loads(arguments)
    return time.process_time() - start


def _source(path: Path) -> sources.Source:
    kind, compressed = sources.kind_of(str(path))
    return sources.Source(str(path), kind, compressed, True)


def _records(path: Path) -> Iterator[sources.Record]:
    for record in sources.read(_source(path)):
        if isinstance(record, sources.Record):
            yield record


def _conversations(path: Path) -> Iterator[Conversation]:
    reader = FileReader()
    for record in _records(path):
        for item in reader.feed(record):
            if isinstance(item, Conversation):
                yield item
    for item in reader.finish():
        if isinstance(item, Conversation):
            yield item


def decode(path: Path) -> float:
    start = time.process_time()
    for _ in _records(path):
        pass
    return time.process_time() - start


def model(path: Path) -> float:
    start = time.process_time()
    for _ in _conversations(path):
        pass
    return time.process_time() - start


def replayed(path: Path) -> float:
    options = ApprovalOptions()
    start = time.process_time()
    for conversation in _conversations(path):
        validate(conversation)
        rep = replay(conversation, options)
        _ = rep.approvals  # lazy in some versions: what the CF rules' requirement asks
    return time.process_time() - start


def _timed(fn: Callable[..., Any], code: str, costs: dict[str, float], generator: bool) -> Any:
    clock = time.perf_counter
    if not generator:

        def plain(*args: Any) -> Any:
            start = clock()
            try:
                return fn(*args)
            finally:
                costs[code] += clock() - start

        return plain

    def gen(*args: Any) -> Any:
        start = clock()
        try:
            found = list(fn(*args))
        finally:
            costs[code] += clock() - start
        return iter(found)

    return gen


def audited(path: Path, settings: config.Settings) -> tuple[float, dict[str, float]]:
    """A whole in-process run, and the time spent in each rule (check and screen)."""
    costs: dict[str, float] = defaultdict(float)
    rules = []
    for rule in settings.rules:
        if rule.check is not None:
            changes: dict[str, Any] = {"check": _timed(rule.check, rule.code, costs, True)}
            if getattr(rule, "screen", None) is not None:
                changes["screen"] = _timed(rule.screen, rule.code, costs, False)  # type: ignore[attr-defined]
            rule = replace(rule, **changes)
        rules.append(rule)
    timed = replace(settings, rules=tuple(rules))
    start = time.process_time()
    engine.audit([str(path)], timed)
    return time.process_time() - start, dict(costs)


def best(fn: Callable[[], float]) -> float:
    return min(fn() for _ in range(RUNS))


def main(path: Path, settings: config.Settings | None = None) -> None:
    settings = settings or config.build()
    size = path.stat().st_size / 1e6
    parse = best(lambda: floor(path))
    stages = {
        "decode (records)": best(lambda: decode(path)),
        "+ formats (model)": best(lambda: model(path)),
        "+ replay, approvals": best(lambda: replayed(path)),
    }
    runs = [audited(path, settings) for _ in range(RUNS)]
    total, costs = min(runs, key=lambda r: r[0])
    print(f"in process, one core: {path.name} ({size:.0f} MB)")
    print(f"  orjson: lines + arguments   {parse:6.2f} s   (the floor)")
    for label, seconds in stages.items():
        print(f"  {label:<26}  {seconds:6.2f} s")
    ratio = parse / total
    print(f"  whole audit                 {total:6.2f} s   {ratio:5.3f}x orjson")
    families: dict[str, float] = defaultdict(float)
    for code, seconds in costs.items():
        families[code[:2]] += seconds
    ranked = sorted(costs.items(), key=lambda kv: -kv[1])
    print(f"  rules                       {sum(costs.values()):6.2f} s   by family: ", end="")
    print(", ".join(f"{f} {s:.2f}" for f, s in sorted(families.items(), key=lambda kv: -kv[1])))
    print("    " + ", ".join(f"{code} {seconds:.2f}" for code, seconds in ranked[:12]))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
