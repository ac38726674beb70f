"""Multi-agent chats: `{history: [{content, role, name?}]}` (Who&When, Magentic-One, AG2).

Text only: the agents talk, no structured calls. Who&When's hand-crafted logs (Magentic-One)
put the speaker in `role` (`human`, `Orchestrator (thought)`, `WebSurfer`, …); the
algorithm-generated ones (AG2 group chats) put it in `name` beside a `role` of `user` or
`assistant` that only says from whose side the chat was recorded, so that role is not used.
Every agent's message is an assistant turn named by its speaker, the orchestrator's included
(it is an LLM agent whose own plans and instructions can be wrong). User turns are: the first
message (the task that starts the chat: a human's question, or the task and plan an AG2
manager hands the group), the human, and code executors (`Computer_terminal`,
`ComputerTerminal`, `*executor`), whose output reaches the agents as the next message.
`chat_history` (AG2's `ChatResult`) is read like `history`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from auditor.formats._common import (
    Draft,
    Problem,
    conversation,
    excerpt_json,
    freeze,
    text_of,
)
from auditor.model import Conversation
from auditor.sources import Record

NAME = "multiagent"
KEYS = ("history", "chat_history")
# Speakers that are people, or programs running the agents' code, not agents.
_NOT_AGENTS = re.compile(r"(?i)human|user|user_?proxy|computer_?terminal|\w*executor")


def detect(record: Record) -> bool:
    value = record.value
    if record.kind != "json" or not isinstance(value, dict):
        return False
    for key in KEYS:
        history = value.get(key)
        if isinstance(history, list) and history:
            first = history[0]
            return (
                isinstance(first, dict)
                and "content" in first
                and ("role" in first or "name" in first)
            )
    return False


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    key = next(k for k in KEYS if isinstance(value.get(k), list))
    problems: list[Problem] = []
    drafts: list[Draft] = []
    for i, entry in enumerate(value[key]):
        here = location.child(key, i)
        speaker = entry.get("name") or entry.get("role") if isinstance(entry, dict) else None
        if not isinstance(speaker, str):
            problems.append(
                Problem(
                    here,
                    "expected a message with a string `name` or `role`",
                    evidence=excerpt_json(entry),
                )
            )
            continue
        person = _NOT_AGENTS.fullmatch(speaker) is not None
        role = "user" if not drafts or person else "assistant"
        name = None if speaker in ("user", "human") else speaker
        drafts.append(Draft(role, here, [text_of(entry.get("content"))], name=name))
    yield from conversation(NAME, value, location, freeze(drafts), problems)
