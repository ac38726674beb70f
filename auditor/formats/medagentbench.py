"""AgentBench results (`runs.jsonl`) of its MedAgentBench task: one run a line, `{index, error,
info, output: {index, status, result, history: [{role, content}]}, time}`.

The agent (`role: agent`, read as the assistant) acts in text, as the task's prompt (the first
user turn) tells it: `GET url?…`, `POST url` with its JSON payload on the lines after it, or
`FINISH([…])`, the final answer (no call). A request is a call of the function the prompt lists
for it, named as there (`GET {api_base}/Observation`, the api_base the prompt gives written
`{api_base}`), whose arguments are the query's parameters or the payload. The harness reads
the action at the start of the stripped message (its agent client takes a ```` ```tool_code ````
fence off) and answers with a user turn, the call's result: "Here is the response from the GET
request: …", "Error in sending the GET request: …" (a failure), "POST request accepted and
executed successfully." (`TEXT`). "Invalid POST request" refuses a POST whose payload is not
JSON.

Any other message ends the run with `status` "agent invalid action" and no reply. When that
message still writes a call, it is a call the harness refused, answered by that status (EX003
reports it): a `GET`/`POST` line under another fence (```` ```json ````), the JSON of a function
from the prompt's list (`{"name": "GET {api_base}/Observation", "arguments": {…}}`, also in a
`function_calls` or `tool_calls` list), or a JSON payload alone, a POST without its `POST url`
line. Such JSON must be the whole message (in a fence or not): a message of prose or a
misspelt `FINISH [{…}]` calls nothing.

Only records whose first turn states that protocol are read: AgentBench's other tasks write
their actions in other ways.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import orjson

from auditor.common.patterns import lazy
from auditor.formats import contract
from auditor.formats._common import MessageDraft, Problem, conversation, freeze, roled, text_of
from auditor.formats._text_actions import Action, TextProtocol, pair
from auditor.model import Conversation, ToolCall, ToolResult
from auditor.sources import Record

NAME = "medagentbench"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
Collector = None
inferred = contract.no_inference

PROTOCOL = "If you decide to invoke a GET function, you MUST put it in the format of"
"""Words of the task's prompt: the records of this task say them in their first turn."""
INVALID = "agent invalid action"
"""The run's status when the harness could not read the agent's last message as an action."""
_REQUEST = lazy(r"(?m)^[ \t]*+(GET|POST)[ \t]++(\S++)")
_CALL_LISTS = ("function_calls", "tool_calls")


def _actions(draft: MessageDraft) -> list[Action]:
    """The action the harness reads: `GET url` or `POST url` then its payload, at the start."""
    text = _unfenced(draft.text)
    if text.startswith("GET"):
        return [_get(text[3:].strip())]
    if text.startswith("POST"):
        line, _, body = text.partition("\n")
        return [_post(line[4:].strip(), _json(body))]
    return []


def _get(url: str) -> Action:
    """`GET {api_base}/Resource` with the query's parameters as its arguments."""
    path, _, query = url.partition("?")
    arguments: dict[str, Any] = {}
    for parameter in query.split("&"):
        key, _, value = parameter.partition("=")
        if key:
            arguments[unquote(key)] = unquote(value)  # as sent: a `+` stays a `+`
    return Action(f"GET {_named(path)}", arguments)


def _post(url: str, payload: Any) -> Action:
    """`POST {api_base}/Resource` with the payload as its arguments (as text when not JSON)."""
    arguments = payload if isinstance(payload, dict) else {"payload": payload}
    return Action(f"POST {_named(url)}", arguments)


def _named(url: str) -> str:
    """The endpoint as the prompt names it: `{api_base}/Observation` for any URL whose last
    segment is a FHIR resource type (the api_base is given once, in the prompt)."""
    base, _, resource = url.rstrip("/").rpartition("/")
    return f"{{api_base}}/{resource}" if base and resource[:1].isupper() else url


def _failed(text: str) -> bool | None:
    if text.startswith("Error in sending"):
        return True
    if text.startswith(("Here is the response", "POST request accepted")):
        return False
    return None


TEXT = TextProtocol(actions=_actions, failed=_failed, refusal=lazy(r"Invalid POST request"))
"""One action a message, answered by the next user turn."""


def detect(record: Record) -> bool:
    value = record.value
    if not isinstance(value, dict):
        return False
    output = value.get("output")
    if not isinstance(output, dict) or not isinstance(output.get("status"), str):
        return False
    history = output.get("history")
    if not isinstance(history, list) or not history or not isinstance(history[0], dict):
        return False
    first = history[0].get("content")
    return isinstance(first, str) and PROTOCOL in first


def parse(record: Record) -> Iterator[Conversation | Problem]:
    value, location = record.value, record.location
    problems: list[Problem] = []
    output = value["output"]
    drafts = [
        MessageDraft("assistant" if item["role"] == "agent" else item["role"], at, [text])
        for _, item, at in roled(output["history"], location.child("output", "history"), problems)
        for text in (text_of(item.get("content")),)
    ]
    drafts = pair(drafts, (TEXT,))
    if output["status"] == INVALID and drafts and drafts[-1].role == "assistant":
        drafts += _refused(drafts[-1], location.child("output", "status"))
    yield from conversation(NAME, value, location, freeze(drafts), problems)


def _refused(last: MessageDraft, at: Any) -> list[MessageDraft]:
    """The calls the message the harness could not read still writes, each answered by the
    run's status as a refusal."""
    if last.calls:
        return []
    drafts = []
    for k, action in enumerate(_meant(last.text)):
        call_id = f"refused-{k}"
        last.calls.append(ToolCall(call_id, action.name, action.arguments, origin="text"))
        result = ToolResult(call_id, INVALID, True, ran=False)
        drafts.append(MessageDraft("tool", at, [INVALID], result=result))
    return drafts


def _meant(text: str) -> list[Action]:
    """The calls a message the harness could not read writes: a request line anywhere, else
    the JSON of function calls, else a JSON payload alone (a POST without its line)."""
    request = _REQUEST.search(text)
    if request is not None:
        if request.group(1) == "GET":
            return [_get(request.group(2))]
        return [_post(request.group(2), _json(_unfenced(text[request.end() :])))]
    value = _json(_unfenced(text, "```json"))
    if not isinstance(value, dict):
        return []  # prose, a misspelt `FINISH [...]`: the JSON must be the whole message
    listed = next((value[k] for k in _CALL_LISTS if isinstance(value.get(k), list)), None)
    items = listed if listed is not None else [value]
    named = [
        Action(item["name"], _object(item.get("arguments", item.get("parameters", {}))))
        for item in items
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]
    if named or listed is not None:
        return named
    resource = value.get("resourceType")
    endpoint = f"{{api_base}}/{resource}" if isinstance(resource, str) else "{api_base}"
    return [Action(f"POST {endpoint}", value)]


def _object(arguments: Any) -> dict[str, Any]:
    """Arguments as an object: anything else is kept under `arguments`."""
    return arguments if isinstance(arguments, dict) else {"arguments": arguments}


def _unfenced(text: str, *also: str) -> str:
    """The message as the harness reads it: stripped, without a ```` ```tool_code ```` or bare
    fence around it (or one of the `also` fences)."""
    text = text.strip()
    for opener in (*also, "```tool_code", "```"):
        if text.startswith(opener) and text[len(opener) : len(opener) + 1] in ("\n", ""):
            text = text[len(opener) :]
            break
    if text.endswith("```"):
        text = text[:-3]
    return text.strip()


def _json(text: str) -> Any:
    """The JSON `text` holds, or the text itself when it holds none."""
    try:
        return orjson.loads(text.strip())
    except orjson.JSONDecodeError:
        return text.strip()
