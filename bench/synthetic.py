"""The synthetic log of `make bench`: OpenAI-format JSON Lines shaped like tau-bench's airline
trajectories (about 16 KB and 26 messages a conversation: a 6 KB system prompt, short user and
assistant turns, the user giving the ids the agent looks up, tool results of ~650 characters,
tools declared with schemas), a few percent of conversations carrying injected failures.
`generate(path, megabytes)` writes it, the same bytes each time (a fixed seed); `bench.py`,
`readers.py`, `coding_readers.py` and `scaleout.py` measure on it.
"""

from __future__ import annotations

import random
from pathlib import Path

import orjson

WORDS = [
    "reservation",
    "flight",
    "passenger",
    "cabin",
    "economy",
    "business",
    "baggage",
    "payment",
    "certificate",
    "gift",
    "card",
    "refund",
    "policy",
    "confirm",
    "cancel",
    "modify",
    "upgrade",
    "membership",
    "gold",
    "silver",
    "regular",
    "insurance",
    "date",
    "origin",
    "destination",
    "airport",
    "seat",
    "available",
    "delayed",
    "status",
    "user",
    "profile",
    "address",
    "agent",
]

BOOKING = '{"user_id": "u", "flight_number": "HAT001", "date": "2024-05-20", "payment_id": "PAY"}'

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name.replace('_', ' ')}.",
            "parameters": {
                "type": "object",
                "properties": {p: {"type": "string"} for p in params},
                "required": list(params),
            },
        },
    }
    for name, params in (
        ("get_user_details", ("user_id",)),
        ("get_reservation_details", ("reservation_id",)),
        ("search_direct_flight", ("origin", "destination", "date")),
        ("book_reservation", ("user_id", "flight_number", "date", "payment_id")),
        ("cancel_reservation", ("reservation_id",)),
        ("think", ("thought",)),
    )
]


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def tool_output(rng: random.Random) -> str:
    record = {
        "reservation_id": f"R{rng.randrange(10**6):06d}",
        "flights": [
            {
                "flight_number": f"HAT{rng.randrange(999):03d}",
                "date": "2024-05-20",
                "price": rng.randrange(90, 900),
            }
            for _ in range(3)
        ],
        "notes": words(rng, 40),
    }
    return orjson.dumps(record).decode()


def _call(call_id: str, name: str, arguments: str) -> dict:
    """An assistant message making one call, arguments as a JSON string."""
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


def conversation(i: int, rng: random.Random, system: str) -> dict:
    messages: list[dict] = [{"role": "system", "content": system}]
    failure = rng.random() < 0.04 and rng.choice(
        ["lost", "orphan", "loop", "text", "harmony", "drift"]
    )
    for step in range(rng.randint(5, 8)):
        said = words(rng, 16)
        if step == 0:  # as tau-bench users do, the user gives the ids the agent looks up
            said = f"I am user_{i}, my reservation is R{i:06d}. {said}"
        messages.append({"role": "user", "content": said})
        for k in range(rng.randint(0, 2)):
            cid = f"call_{i}_{step}_{k}"
            name = rng.choice(
                ["get_user_details", "get_reservation_details", "search_direct_flight"]
            )
            args = {
                "get_user_details": {"user_id": f"user_{i}"},
                "get_reservation_details": {"reservation_id": f"R{i:06d}"},
                "search_direct_flight": {
                    "origin": "JFK",
                    "destination": "SEA",
                    "date": "2024-05-20",
                },
            }[name]
            messages.append(_call(cid, name, orjson.dumps(args).decode()))
            messages.append({"role": "tool", "tool_call_id": cid, "content": tool_output(rng)})
        messages.append({"role": "assistant", "content": words(rng, 28)})
    if failure == "lost":
        messages.insert(-1, _call(f"lost_{i}", "cancel_reservation", '{"reservation_id": "R1"}'))
    elif failure == "orphan":
        messages.append({"role": "tool", "tool_call_id": f"nobody_{i}", "content": "done"})
    elif failure == "loop":
        for k in range(4):
            cid = f"loop_{i}_{k}"
            messages.append(_call(cid, "book_reservation", BOOKING.replace("PAY", "card_1")))
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": cid,
                    "content": "Error: payment amount does not add up",
                }
            )
    elif failure == "text":
        messages.append(
            {
                "role": "assistant",
                "content": '[{"tool": "cancel_reservation", "reservation_id": "R1"}]',
            }
        )
    elif failure == "harmony":
        messages.append(
            {
                "role": "assistant",
                "content": "<|channel|>commentary to=functions.think <|constrain|>json"
                '<|message|>{"thought": "x"}<|call|>',
            }
        )
    elif failure == "drift":
        messages.append(
            {
                "role": "assistant",
                "content": "I will book HAT001 on 2024-05-20 paid with card_1. Shall I proceed?",
            }
        )
        messages.append({"role": "user", "content": "Yes."})
        messages.append(_call(f"b_{i}", "book_reservation", BOOKING.replace("PAY", "gift_9")))
        messages.append({"role": "tool", "tool_call_id": f"b_{i}", "content": "booked"})
    return {"id": f"bench-{i}", "tools": TOOLS, "messages": messages}


def generate(path: Path, megabytes: int) -> int:
    rng = random.Random(42)
    system = "# Airline Agent Policy\n\n" + words(rng, 900)
    target = megabytes * 1_000_000
    written = n = 0
    with open(path, "wb") as f:
        while written < target:
            line = orjson.dumps(conversation(n, rng, system)) + b"\n"
            f.write(line)
            written += len(line)
            n += 1
    return n


def first(synthetic: Path, megabytes: int) -> Path:
    """The log's first `megabytes` megabytes (whole lines), cut once beside it."""
    cut = synthetic.with_name(f"{synthetic.stem}-first-{megabytes}mb.jsonl")
    if not cut.exists():
        with synthetic.open("rb") as source, cut.open("wb") as out:
            budget = megabytes * 1_000_000
            for line in source:
                out.write(line)
                budget -= len(line)
                if budget <= 0:
                    break
    return cut


def corpora(synthetic: Path, megabytes: int) -> list[tuple[str, list[str]]]:
    """What the in-process measures read: the synthetic log's first `megabytes`, and
    tau-bench's real logs when ../shared is beside the checkout."""
    found = [(f"synthetic tau-like log ({megabytes} MB)", [str(first(synthetic, megabytes))])]
    tau = Path(__file__).resolve().parent.parent.parent / "shared" / "realdata" / "tau-bench"
    if tau.is_dir():
        found.append(("tau-bench (realdata)", [str(tau)]))
    return found
