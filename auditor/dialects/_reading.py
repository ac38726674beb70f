"""What the recogniser finds in one text: the data every dialect module returns."""

from __future__ import annotations

from typing import Any

from auditor.common.structs import dataclass

TextSpan = tuple[int, int]
"""Start and end of something in the text, as in `re.Match.span()`."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One ReAct label and its value: `Action: search` is label `Action`, value `search`."""

    label: str
    """`Thought`, `Action`, `Action Input`, `Observation` or `Final Answer`."""
    value: str
    """The text after the label, stripped; for a JSON Action Input, exactly the JSON."""
    span: TextSpan


@dataclass(frozen=True, slots=True)
class Step:
    """A ReAct Action with the input and observation written after it in the same text."""

    action: Segment
    action_input: Segment | None
    observation: Segment | None


@dataclass(frozen=True, slots=True)
class TextCall:
    """A tool call recovered from message text."""

    name: str
    arguments: Any
    """The arguments as the model meant them (parsed JSON, or text where it wrote text)."""
    dialect: str
    """`json`, `hermes`, `function-tag`, `mistral`, `python-tag`, `harmony` or `react`."""
    form: str
    """How it was written, to follow "written as text in": `the Mistral [TOOL_CALLS] dialect`."""
    span: TextSpan
    repaired: bool = False
    """The JSON was malformed; the arguments are what json-repair recovered."""
    observed: bool = False
    """ReAct: an Observation with text follows this Action in the same message."""
    loose: bool = False
    """A flat JSON object read as a call with no declared tool to check its name against
    (`prose_json`): data the user or a tool gave that names the same action is not a call."""


@dataclass(frozen=True, slots=True)
class Frame:
    """A harmony frame: `<|start|>author to=recipient<|channel|>channel<|message|>body<|end|>`."""

    author: str | None
    """The role after `<|start|>`; None when the frame starts at `<|channel|>`."""
    recipient: str | None
    """The `to=` target: `functions.search` for a call, `assistant` for a tool's reply."""
    channel: str | None
    body: str
    terminator: str | None
    """`<|call|>`, `<|end|>` or `<|return|>`; None when the text ends inside the frame."""
    span: TextSpan
    body_at: int
    """Where the body starts in the text."""


@dataclass(frozen=True, slots=True)
class Token:
    """A chat-template control token (`<|channel|>`, `<|im_end|>`, `[TOOL_CALLS]`, …)."""

    text: str
    span: TextSpan
    quoted: bool
    """Inside a backtick code span or fence: quoted while explaining, not leaked."""


@dataclass(frozen=True, slots=True)
class Block:
    """A `<tool_call>` or `<tool_response>` block outside code."""

    tag: str
    body: str
    span: TextSpan


@dataclass(frozen=True, slots=True)
class Reading:
    """Everything the recogniser found in one text, in text order."""

    segments: tuple[Segment, ...] = ()
    steps: tuple[Step, ...] = ()
    calls: tuple[TextCall, ...] = ()
    frames: tuple[Frame, ...] = ()
    tokens: tuple[Token, ...] = ()
    blocks: tuple[Block, ...] = ()

    def answers(self) -> tuple[Segment, ...]:
        """The `Final Answer:` segments that say something."""
        return tuple(s for s in self.segments if s.label == "Final Answer" and s.value)


EMPTY = Reading()
