"""A refund is issued for more than the order's lookup says was paid for it.

## What it does
Reads each successful call of a tool whose name starts with `get_order` for the order's id
(`order_id`) and what was paid (`total`, `amount_paid` or `paid`) in its JSON result, and each
later call of a tool whose name holds `refund` with that `order_id` and an `amount`. Fires when
the amount is above what the order's lookup showed.

## Why is this bad?
A refund above the price paid gives away money: the agent read the wrong line of the order,
added a fee twice, or refunded an order it never looked up under another's id.

## Example
```jsonl
{"id": "refund-too-much", "messages": [{"role": "user", "content": "Refund order #W1 please."}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_order_details", "arguments": "{\\"order_id\\": \\"#W1\\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "{\\"order_id\\": \\"#W1\\", \\"total\\": 40.5}"}, {"role": "assistant", "content": null, "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "refund_order", "arguments": "{\\"order_id\\": \\"#W1\\", \\"amount\\": 45}"}}]}, {"role": "tool", "tool_call_id": "c2", "content": "{\\"status\\": \\"refunded\\"}"}]}
```

## Does not fire on
A refund of the amount paid or less; a refund of an order no lookup showed (nothing to compare
with: the built-in rules look at ungrounded ids).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

from auditor.findings import Violation, describe_call

CODE = "ORD001"
NAME = "refund-above-paid"
SEVERITY = "error"
REQUIRES = ("calls",)

_PAID = ("total", "amount_paid", "paid")


def check(replay: Any, options: None) -> Iterator[Violation]:
    paid: dict[str, Decimal] = {}  # order id -> what its lookup showed was paid
    for exchange in replay.exchanges:
        call, result = exchange.call, exchange.result
        if result is None or exchange.failed or not isinstance(call.arguments, dict):
            continue
        if call.name.startswith("get_order"):
            order = _json(result.text)
            if isinstance(order, dict) and "order_id" in order:
                amount = next((_decimal(order[k]) for k in _PAID if k in order), None)
                if amount is not None:
                    paid[str(order["order_id"])] = amount
        elif "refund" in call.name:
            order_id = str(call.arguments.get("order_id"))
            amount = _decimal(call.arguments.get("amount"))
            if order_id in paid and amount is not None and amount > paid[order_id]:
                yield Violation(
                    f"`{call.name}` refunded {amount} for order {order_id}, above the "
                    f"{paid[order_id]} its lookup shows was paid",
                    exchange.turn,
                    call.location or replay.conversation.messages[exchange.turn].location,
                    tool=call.name,
                    call_id=call.id,
                    evidence=describe_call(call),
                )


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None
