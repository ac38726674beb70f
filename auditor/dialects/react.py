"""ReAct: `Thought:/Action:/Action Input:/Observation:/Final Answer:` labels at line starts.

llama_index's ReAct agents end with `Answer:` instead of `Final Answer:`: in a message that
has a `Thought:` or `Action:`, an `Answer:` label is its final answer.

`segments` reads the labels outside code; an `Action Input:` whose value is JSON is scanned as
JSON to its closing bracket before looking for the next label, so a `Final Answer:` inside the
Action Input's string is not a segment. `steps` groups them: an Action, its input, its
observation. `calls` makes each Action a call; where no tools are declared, an Action needs an
input (or `name[input]`) to count.
"""

from __future__ import annotations

import itertools
import re
from typing import Any

import orjson

from auditor.common.patterns import lazy
from auditor.dialects._reading import Segment, Step, TextCall
from auditor.dialects._scan import MAX_MARKS, NOT_ACTIONS, TextScanner, valid_name

FORM = "the ReAct `Action:` dialect"
_LABEL = lazy(
    r"^[ \t]*+(Thought|Action[ \t]*+Input|Action|Observation|Final[ \t]*+Answer|Answer)"
    r"(?:[ \t]*+\d{1,3})?[ \t]*+:",
    re.MULTILINE,
)
_BRACKET_ACTION = lazy(r"([A-Za-z_][\w.\- ]{0,63})\[(.*)\]")


def segments(scan: TextScanner) -> tuple[Segment, ...]:
    """ReAct labels at line starts; a JSON Action Input is skipped whole, as JSON."""
    text = scan.text
    found = itertools.islice(_LABEL.finditer(text), MAX_MARKS)
    labels = [m for m in found if scan.unquoted(m.start())]
    # llama_index ends a ReAct turn with `Answer:`; elsewhere `Answer:` is just a word
    react = any(m.group(1) in ("Thought", "Action") for m in labels)
    labels = [m for m in labels if react or m.group(1) != "Answer"]
    segments = []
    i = 0
    while i < len(labels):
        m = labels[i]
        label = " ".join(m.group(1).split())
        label = "Final Answer" if label == "Answer" else label
        resume = m.end()
        json_span = None
        if label == "Action Input":
            stop = labels[i + 1].start() if i + 1 < len(labels) else len(text)
            value_at = scan.value_start(m.end(), stop)
            end = scan.json_end(value_at, len(text)) if value_at is not None else None
            if end is not None:
                json_span = (value_at, end)
                resume = end
        k = i + 1
        while k < len(labels) and labels[k].start() < resume:
            k += 1  # a label inside the Action Input's JSON is part of the JSON
        value_end = labels[k].start() if k < len(labels) else len(text)
        value = text[slice(*json_span)] if json_span else text[m.end() : value_end].strip()
        segments.append(Segment(label, value, (m.start(), value_end)))
        i = k
    return tuple(segments)


def steps(segments: tuple[Segment, ...]) -> tuple[Step, ...]:
    """Each Action with the Action Input and Observation that follow it."""
    found: list[list[Any]] = []
    current: list[Any] | None = None
    for segment in segments:
        if segment.label == "Action":
            current = [segment, None, None]
            found.append(current)
        elif current is None:
            continue
        elif segment.label == "Action Input" and current[1] is None and current[2] is None:
            current[1] = segment
        elif segment.label == "Observation" and current[2] is None:
            current[2] = segment
        elif segment.label == "Final Answer":
            current = None
    return tuple(Step(a, i, o) for a, i, o in found)


def calls(scan: TextScanner, steps: tuple[Step, ...]) -> list[TextCall]:
    """Each Action that names a tool, as a call; the Action Inputs are marked as read."""
    calls = [call for call in (_call(scan, s) for s in steps) if call is not None]
    inputs = [s.action_input.span for s in steps if s.action_input is not None]
    scan.taken.extend(inputs)
    return scan.take(calls)


def _call(scan: TextScanner, step: Step) -> TextCall | None:
    line = step.action.value.split("\n", 1)[0].strip().strip("`*'\"").strip()
    if not line or len(line) > 200:
        return None
    name, arguments, has_input = line, None, False
    bracket = _BRACKET_ACTION.fullmatch(line)
    if bracket and not valid_name(line, scan.names):
        name, arguments, has_input = bracket.group(1).strip(), bracket.group(2), True
    if name.lower() in NOT_ACTIONS or not valid_name(name, scan.names):
        return None
    repaired = False
    if step.action_input is not None:
        has_input = True
        arguments = step.action_input.value
        if arguments.startswith(("{", "[")):
            try:
                arguments = orjson.loads(arguments)
            except orjson.JSONDecodeError:
                fixed = scan.repair(arguments, call_known=True)
                if fixed is not None:
                    arguments, repaired = fixed, True
    if scan.names is None and not has_input:
        return None  # without declared tools, `Action:` alone is too weak
    last = step.action_input or step.action
    observed = step.observation is not None and bool(step.observation.value)
    span = (step.action.span[0], last.span[1])
    return TextCall(
        name, {} if arguments is None else arguments, "react", FORM, span, repaired, observed
    )
