"""Who speaks in a multi-agent chat, as the rules that care read a message's `name`.

The multi-agent reader keeps each speaker as logged: `Orchestrator (-> WebSurfer)` is the
orchestrator addressing the web surfer, and Magentic-One's `Orchestrator (thought)` is the
orchestrator's private note (its plan, its ledger, its "Next speaker WebSurfer"), which no other
agent reads and nobody is sent.
"""

from __future__ import annotations


def private(name: str | None) -> bool:
    """The message is a note only its author sees (`… (thought)`)."""
    return name is not None and name.endswith("(thought)")


def speaker(name: str | None) -> str | None:
    """The agent a message's `name` is, whatever it addresses (`Orchestrator (-> WebSurfer)`
    is the `Orchestrator`); None for no name, and for private notes."""
    if not name or private(name):
        return None
    return name.split(" (", 1)[0]
