"""tau-bench and tau2-bench results.

tau-bench writes a list of `{task_id, trial, reward, info, traj}` where `traj` is a list of
OpenAI chat messages. tau2-bench writes `{info, tasks, simulations: [{id, task_id, trial,
messages}]}`: calls are flat `{id, name, arguments}` with arguments as an object, tool replies
are `{role: tool, id, error}` linked to the call by `id`, and in some domains the simulated user
calls tools too (those calls and results stay on the user's side of the conversation). The
domain policy tau2 gave the agent (`info.environment_info.policy`) is kept as each
conversation's `instructions`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from auditor.formats import contract, openai
from auditor.formats._common import (
    Problem,
    as_id,
    attach,
    containers,
    fallback_id,
    read_each,
    tool_specs,
)
from auditor.model import Conversation, Location
from auditor.sources import Record

NAME = "tau"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, dict):
        return isinstance(value.get("traj"), list) or isinstance(value.get("simulations"), list)
    return (
        isinstance(value, list)
        and bool(value)
        and isinstance(value[0], dict)
        and isinstance(value[0].get("traj"), list)
    )


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    if isinstance(value, list):
        units = containers(value, location, "traj", "a tau-bench entry with a `traj` list")
        yield from read_each(units, _trajectory)
    elif isinstance(value.get("traj"), list):
        yield from _trajectory(value, location, None)
    else:
        yield from _simulations(value, location)


def _trajectory(
    entry: dict, location: Location, index: int | None
) -> Iterator[Conversation | Problem]:
    problems: list[Problem] = []
    messages = openai.messages(entry["traj"], location.child("traj"), problems)
    task = as_id(entry.get("task_id"))
    cid = None
    if task is not None:
        trial = as_id(entry.get("trial"))
        cid = f"task-{task}" if trial is None else f"task-{task}-trial-{trial}"
    conversation_id = cid or fallback_id(location, index)
    yield from attach(problems, conversation_id)
    yield Conversation(
        conversation_id,
        NAME,
        location,
        messages,
        tools=tool_specs(entry.get("tools")),
        own_id=cid is not None,
    )


def _simulations(value: dict, location: Location) -> Iterator[Conversation | Problem]:
    simulations = value["simulations"]
    if not simulations:
        yield Problem(location.child("simulations"), "tau2 results hold no simulation")
        return
    tools = tool_specs(_dig(value, "info", "environment_info", "tool_defs"))
    policy = _dig(value, "info", "environment_info", "policy")
    instructions = policy if isinstance(policy, str) else ""
    units = containers(
        simulations,
        location.child("simulations"),
        "messages",
        "a tau2 simulation with a `messages` list",
    )

    def simulation(sim: dict, here: Location, i: int) -> Iterator[Conversation | Problem]:
        problems: list[Problem] = []
        messages = openai.messages(sim["messages"], here.child("messages"), problems)
        cid = as_id(sim.get("id"))
        conversation_id = cid or fallback_id(location, i)
        yield from attach(problems, conversation_id)
        yield Conversation(
            conversation_id,
            NAME,
            here,
            messages,
            tools=tools,
            own_id=cid is not None,
            instructions=instructions,
        )

    yield from read_each(units, simulation)


def _dig(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value
