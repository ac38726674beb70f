"""Actions in words, and the tools that carry them out.

Two readers share this vocabulary: FB003 reads completion claims ("has been cancelled") and
asks which tool could have done it; approvals read the user's instructions ("please cancel
it") and ask which calls carry them out. A verb names the tools with that word
(`cancel` -> `cancel_reservation`); a verb of change also names tools of change whose other
words name what changed (`bags … added` -> `update_reservation_baggages`).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from auditor.common.patterns import lazy
from auditor.languages import DOING, TOOL_WORDS

# Participles of actions that change something, by the verb a tool's name would use.
VERBS = {
    "cancel": "cancelled canceled",
    "book": "booked rebooked",
    "reserve": "reserved",
    "send": "sent resent",
    "invite": "invited",
    "share": "shared",
    "post": "posted",
    "forward": "forwarded",
    "email": "emailed",
    "transfer": "transferred",
    "refund": "refunded",
    "issue": "issued",
    "create": "created",
    "delete": "deleted",
    "submit": "submitted",
    "schedule": "scheduled rescheduled",
    "enable": "enabled",
    "disable": "disabled",
    "activate": "activated",
    "deactivate": "deactivated",
    "suspend": "suspended",
    "resume": "resumed",
    "reset": "reset",
    "reboot": "rebooted",
    "restart": "restarted",
    "toggle": "toggled",
    "refuel": "refueled refuelled",
    "disconnect": "disconnected",
    "connect": "connected",
    "order": "ordered",
    "purchase": "purchased",
    "pay": "paid",
    "charge": "charged",
    "archive": "archived",
    "restore": "restored",
    "approve": "approved",
    "merge": "merged",
    "deploy": "deployed",
    "exchange": "exchanged",
    "return": "returned",
    "add": "added",
    "change": "changed",
    "update": "updated",
    "modify": "modified",
    "remove": "removed",
    "upgrade": "upgraded",
    "downgrade": "downgraded",
}
PARTICIPLES = {p: verb for verb, forms in VERBS.items() for p in forms.split()}
PARTICIPLES_OF = {verb: forms.split() for verb, forms in VERBS.items()}
CHANGE = frozenset(("add", "change", "update", "modify", "remove", "upgrade", "downgrade"))
"""Verbs of change: tools are matched by what changed, too (`bags … added` → `…_baggages`)."""
CHANGE_TOOLS = frozenset(
    ("add", "change", "update", "modify", "edit", "set", "remove", "upgrade", "downgrade")
)
"""Words that make a tool one of change, when its other words name what it changes."""
ACTIONS = {
    "booking": "book",
    "cancellation": "cancel",
    "change": "change",
    "changes": "change",
    "modification": "modify",
    "update": "update",
    "upgrade": "upgrade",
    "downgrade": "downgrade",
    "exchange": "exchange",
    "return": "return",
    "refund": "refund",
    "order": "order",
    "purchase": "purchase",
    "payment": "pay",
}
"""Nouns of action, by their verb: "the cancellation has been processed" is a cancel."""
_FAMILIES = (
    "create add schedule book reserve register insert",
    "send post invite share forward email message notify reply publish",
    "cancel delete remove archive revoke",
    "update change set reset modify edit rename upgrade downgrade",
)
FAMILY = {verb: frozenset(f.split()) for f in _FAMILIES for verb in f.split()}
"""Verbs that name one kind of action, by each of them: a claim that something "has been
added" is done by `create_calendar_event`, "I have sent the invitation" by
`invite_user_to_slack`."""

_WORDS = lazy(r"[A-ZÀ-Ý]?[a-zß-ÿ]+|[A-ZÀ-Ý]+(?![a-zß-ÿ])|\d+")


@lru_cache(maxsize=4096)  # a log calls a handful of tools, many times each
def words(name: str) -> tuple[str, ...]:
    """The words of a tool name, lowercased: `update_reservation_flights`, `WebFetch`. A verb
    in Spanish, Portuguese, French, German or Italian is given as its English verb
    (`anular_sic` -> `cancel`, `sic`; `bestellungStornieren` -> `bestellung`, `cancel`), and
    so is a verb that only says something is done beside a noun of action
    (`realizar_transferencia` -> `transfer`, `transferencia`)."""
    return _english([w.lower() for w in _WORDS.findall(name)])[0]


def _english(raw: list[str]) -> tuple[tuple[str, ...], bool]:
    """The words of a tool name as `words` gives them, and whether one was another
    language's."""
    doing = next((w for w in raw if w in DOING), "")
    done = next((DOING[doing][w] for w in raw if w in DOING[doing]), "") if doing else ""
    found = tuple(done if done and w == doing else TOOL_WORDS.get(w, w) for w in raw)
    return found, bool(done) or any(w in TOOL_WORDS for w in raw)


FOREIGN_VERBS = frozenset(TOOL_WORDS.values()) | {v for n in DOING.values() for v in n.values()}
"""The English verbs tool names in other languages are read as."""


@lru_cache(maxsize=4096)
def translated(name: str) -> str | None:
    """A tool name with a verb in another language, its words joined with `_` in English
    (`anular_sic` -> `cancel_sic`, `bestellungStornieren` -> `bestellung_cancel`,
    `ueberweisung_ausfuehren` -> `ueberweisung_transfer`); None for a name with none."""
    found, foreign = _english([w.lower() for w in _WORDS.findall(name)])
    return "_".join(found) if foreign else None


def tools_for(verb: str, subject: Iterable[str], tools: Iterable[str]) -> list[str]:
    """The tools that could do `verb` to `subject` (the words naming what was acted on): a
    tool with the verb in its name whose other words agree with the subject (or that has no
    other words, or when the subject is empty); for a verb of change, also a tool of change
    whose other words agree with the subject (any tool of change when it is empty)."""
    subject = list(subject)
    found = []
    for tool in tools:
        parts = words(tool)
        named = [p for p in parts if p not in VERBS and p not in CHANGE_TOOLS]
        agrees = any(names(n, subject) for n in named)
        if verb in parts:
            if agrees or not named or not subject:
                found.append(tool)
        elif verb in CHANGE and CHANGE_TOOLS.intersection(parts) and (agrees or not subject):
            found.append(tool)
    return found


_NOUNS_TOO_WORDS = """
    email message post book set reply share schedule archive register change update reset
"""
_NOUNS_TOO = frozenset(_NOUNS_TOO_WORDS.split())
"""Verbs of the families that are nouns too: `draft_email` drafts, it does not e-mail."""


def of_family(verb: str, tool: str) -> bool:
    """The tool's name says it does an action of `verb`'s family: its first word is one of
    them, or a later word that is only a verb (`slack_send_message`, not `draft_email`)."""
    family = FAMILY.get(verb, frozenset((verb,)))
    return any(w in family and (i == 0 or w not in _NOUNS_TOO) for i, w in enumerate(words(tool)))


def nouns(tool: str) -> list[str]:
    """The words of a tool's name that say what it acts on: `create_calendar_event` ->
    `calendar`, `event`."""
    return [
        w
        for w in words(tool)
        if len(w) > 2 and w not in VERBS and w not in CHANGE_TOOLS and w not in FAMILY
    ]


def does(verb: str, tool: str) -> bool:
    """The tool could carry out `verb`, whatever it is done to: `cancel` -> `cancel_order`; a
    verb of change -> any tool of change (`upgrade` -> `update_reservation_flights`)."""
    parts = words(tool)
    if verb in parts:
        return True
    return verb in CHANGE and bool(CHANGE_TOOLS.intersection(parts) or CHANGE.intersection(parts))


def names(part: str, subject: Iterable[str]) -> bool:
    """A word of a tool's name names one of the subject's words (`baggages` ~ `bags`)."""
    stem = part.rstrip("s")
    if len(stem) < 3:
        return False
    for w in subject:
        if w.startswith(stem):
            return True
        short = w.rstrip("s")
        if len(short) >= 3 and stem.startswith(short):
            return True
    return False
