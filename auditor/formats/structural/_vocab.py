"""The words logs use for who spoke and where a message keeps its text, calls and results.

One synonym table for roles, whatever key holds them; the keys each part of a message is
found under, as the writers of the formats the structural reader was taught on name them
(OpenAI and Anthropic messages, Gemini `contents`, Bedrock Converse, Cohere chat history,
LangChain message dicts, LlamaIndex `ChatMessage`, Haystack `ChatMessage`, the Vercel AI SDK,
Semantic Kernel `ChatHistory`, typed event streams). Compared after `fold`: lower case,
without `_`, `-` or spaces, so that `toolCalls`, `tool_calls` and `Tool-Calls` are one key.
"""

from __future__ import annotations

import re


def fold(word: str) -> str:
    """A key or a value as the tables hold it: `tool_use_id`, `toolUseId` -> `tooluseid`."""
    return word.lower().replace("_", "").replace("-", "").replace(" ", "").replace(".", "")


ROLES = {
    **dict.fromkeys(("user", "human", "customer", "client", "humanmessage", "person"), "user"),
    **dict.fromkeys(
        (
            *("assistant", "ai", "model", "bot", "agent", "gemini", "chatbot", "gpt", "aimessage"),
            *("assistantagent", "copilot", "claude", "llm"),
        ),
        "assistant",
    ),
    **dict.fromkeys(
        (
            *("tool", "function", "toolresult", "observation", "environment", "ipython"),
            *("toolmessage", "functionmessage", "toolresponse", "functionresponse", "env"),
            *("functionresult", "functioncalloutput", "toolcalloutput", "toolcallresult"),
        ),
        "tool",
    ),
    **dict.fromkeys(("system", "developer", "systemmessage", "instruction"), "system"),
    **dict.fromkeys(("tooluse", "toolcall", "functioncall", "toolcallrequest"), "call"),
}
"""A role-like value, folded, to `user`, `assistant`, `tool`, `system`, or `call` (an event
that is an assistant's call on its own: `type: tool_use`, `type: function_call`)."""

_MODEL_NAME = re.compile(
    r"(gpt|claude|gemini|llama|mistral|mixtral|qwen|deepseek|o[134]|command|phi|grok|gemma)"
    r"[-\w.:/]*$"
)
"""A model's name said in place of `assistant` (`author: gpt-4o`)."""


def role_of(value: object) -> str | None:
    """What a role-like value means, or None when it names no role."""
    if type(value) is not str or not value or len(value) > 60:
        return None
    folded = fold(value)
    role = ROLES.get(folded)
    if role is None and _MODEL_NAME.match(value.lower()):
        return "assistant"
    return role


ROLE_KEYS = (
    *("role", "_role", "sender", "author", "from", "speaker", "actor", "source", "participant"),
    *("type", "kind", "messagetype", "entity"),
)
"""Keys a role may sit under, folded, most telling first (`type: message, role: user`)."""

WRAPPERS = ("message", "data", "payload", "item", "msg", "event", "content")
"""Keys under which an event wraps the message itself (`{type: assistant, message: {...}}`,
LangChain's `{type: human, data: {...}}`)."""

TEXT_KEYS = (
    *("content", "text", "message", "parts", "value", "msg", "utterance", "blocks", "items"),
)
"""Keys a message keeps its text under (folded)."""

CALL_LISTS = ("toolcalls", "functioncalls", "calls", "toolcall", "toolrequests")
"""Keys holding a message's calls as a list (`tool_calls`, `toolCalls`, Cohere's)."""

CALL_OBJECTS = ("functioncall", "tooluse", "toolcall", "toolcallrequest")
"""Keys of one call object: in a message (`function_call`) or a part (`functionCall`,
Bedrock's `toolUse`, Haystack's `tool_call`)."""

RESULT_OBJECTS = (
    *("functionresponse", "toolresult", "toolcallresult", "functionresult", "toolresponse"),
)
"""Keys of one result object in a part (`functionResponse`, `toolResult`)."""

CALL_TYPES = frozenset(
    (
        *("tooluse", "toolcall", "functioncall", "servertooluse", "toolrequest"),
        *("functioncallrequest", "functioncallcontent", "builtintoolcall"),
    )
)
"""A part's or an event's `type` (folded) that makes it a call."""

RESULT_TYPES = frozenset(
    (
        *("toolresult", "functioncalloutput", "functionresponse", "toolresponse"),
        *("functionresult", "toolcallresult", "toolcalloutput", "observation"),
        *("functionresultcontent", "toolreturn", "builtintoolreturn"),
    )
)
"""A part's or an event's `type` (folded) that makes it a result."""

NAME_KEYS = ("name", "toolname", "functionname", "tool", "function", "action")
ARGUMENT_KEYS = ("arguments", "args", "input", "parameters", "params", "kwargs", "actioninput")
CALL_ID_KEYS = ("callid", "toolcallid", "tooluseid", "toolid", "functioncallid", "id")
"""A call's own id last: a Responses or Mistral item has an item `id` beside its `call_id`."""
RESULT_ID_KEYS = ("toolcallid", "tooluseid", "callid", "toolid", "functioncallid", "id")
RESULT_TEXT_KEYS = (
    *("content", "output", "result", "response", "outputs", "text", "observation"),
    *("value", "data"),
)

TEXT_TYPES = frozenset(
    (
        *("text", "inputtext", "outputtext", "textblock", "textpart", "markdown"),
        *("textcontent", "userprompt"),
    )
)
REASONING_TYPES = frozenset(("thinking", "reasoning", "redactedthinking", "thought"))
MEDIA_TYPES = frozenset(
    (
        *("image", "imageurl", "inputimage", "document", "file", "audio", "inputaudio"),
        *("inlinedata", "filedata", "imageblock", "video", "media", "refusal"),
        *("stepstart", "stepfinish", "sourceurl", "sourcedocument", "citation"),
    )
)
"""Part types that hold no text, call or result and are read as nothing, not as a gap (media,
a refusal, the AI SDK's step marks and sources)."""

MEDIA_KEYS = frozenset(
    ("inlinedata", "filedata", "image", "imageurl", "document", "video", "audio")
)
"""Keys of a part without a `type` that hold a medium (Gemini `inlineData`, Bedrock `image`)."""

META_KEYS = frozenset(
    (
        *("id", "name", "timestamp", "time", "createdat", "metadata", "meta", "index"),
        *("usage", "model", "status", "uuid", "parentuuid", "date", "tokens", "cost"),
    )
)
