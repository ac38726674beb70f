"""The bodies of an exchange: a request or a response of any of the five APIs, as messages.

Chat Completions, Anthropic Messages and Responses are read by their own readers; Gemini
`generateContent` and Bedrock `Converse` by `gemini` and `bedrock`.
"""

from __future__ import annotations

import orjson

from auditor.formats import anthropic, openai, responses
from auditor.formats._common import (
    ID_KEYS,
    Problem,
    as_id,
    excerpt_json,
    freeze,
    own_id,
    tool_specs,
)
from auditor.formats.exchange import bedrock, gemini
from auditor.model import Location, Message, ToolSpec


def body(part: dict, location: Location, problems: list[Problem]) -> tuple[dict | None, Location]:
    """The body of a request or response: wrapped in `body` (maybe as a JSON string) or not."""
    if "body" not in part:
        return part, location
    body, location = part["body"], location.child("body")
    if isinstance(body, str):
        try:
            body = orjson.loads(body)
        except orjson.JSONDecodeError:
            problems.append(
                Problem(
                    location, "body is not JSON (a streamed response?)", evidence=excerpt_json(body)
                )
            )
            return None, location
    if isinstance(body, dict):
        return body, location
    if body is not None:
        problems.append(
            Problem(location, "expected a JSON object body", evidence=excerpt_json(body))
        )
    return None, location


def request(
    body: dict, location: Location, problems: list[Problem]
) -> tuple[list[Message], tuple[ToolSpec, ...] | None]:
    if gemini.is_request(body):
        return list(freeze(gemini.request(body, location, problems))), gemini.declared_tools(body)
    if bedrock.is_request(body):
        drafts = bedrock.request(body, location, problems)
        return list(freeze(drafts)), bedrock.declared_tools(body)
    if isinstance(body.get("messages"), list):
        # Chat Completions or Anthropic: the Anthropic reader takes both (and a `system`)
        messages = anthropic.messages(body, location, problems)
        return list(messages), tool_specs(body.get("tools") or body.get("functions"))
    if "input" in body:
        items = responses.Items(problems)
        responses.read_input(body, location, items)
        items.close()
        return list(freeze(items.drafts)), responses.declared_tools(body.get("tools"), items.listed)
    problems.append(
        Problem(
            location,
            "request body has none of `messages`, `input`, `contents`",
            evidence=_keys(body),
        )
    )
    return [], None


def response(
    body: dict, location: Location, problems: list[Problem]
) -> tuple[list[Message], tuple[ToolSpec, ...]]:
    if isinstance(body.get("content"), list) and body.get("role", "assistant") == "assistant":
        message = body if "role" in body else {**body, "role": "assistant"}
        return list(freeze(anthropic.read_message(message, location, problems))), ()
    choices = body.get("choices")
    if isinstance(choices, list):
        # n > 1 gives alternatives to choose from; the conversation continues with the first
        choice = choices[0] if choices and isinstance(choices[0], dict) else {}
        answer = choice.get("message")
        if isinstance(answer, dict) and isinstance(answer.get("role"), str):
            here = location.child("choices", 0, "message")
            return [openai.message(answer, 0, here, problems)], ()
        if choices:
            problems.append(
                Problem(location.child("choices", 0), "expected a choice with a `message`")
            )
        return [], ()
    if "candidates" in body:
        return list(freeze(gemini.response(body, location, problems))), ()
    if bedrock.is_response(body):
        return list(freeze(bedrock.response(body, location, problems))), ()
    if isinstance(body.get("output"), list):
        items = responses.Items(problems)
        items.extend(body["output"], location.child("output"))
        items.close()
        return list(freeze(items.drafts)), tuple(items.listed)
    return [], ()  # an error response: no turn


def conversation_id(body: dict) -> str | None:
    """A conversation id the request carries (Responses `conversation`, or in `metadata`)."""
    conversation = body.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("id")
    found = as_id(conversation)
    metadata = body.get("metadata")
    if found is None and isinstance(metadata, dict):
        found = own_id(metadata, *ID_KEYS[1:])
    return found


def _keys(body: dict) -> str:
    return "keys: " + ", ".join(sorted(map(str, body))[:6])
