"""Gateway and HTTP recordings of model API calls: a request and its response per record.

Reads `{request: {method, url, body}, response: {status, body}}` (bodies may be JSON strings)
and the unwrapped `{request: {messages, tools}, response: {choices: [...]}}`, with any of the
three APIs on either side: Chat Completions (`messages`, `choices[0].message`), Anthropic
Messages (`messages` with content blocks, a response with `content`), Responses (`input` and
`instructions`, a response with `output`). A lone response body (`{"type": "message", …}`,
`{"object": "response", …}`, `{"object": "chat.completion", …}`) is a one-turn snapshot.

Two more APIs are read as dialects: Gemini `generateContent` (`contents` of `{role, parts}`,
`functionCall`/`functionResponse` parts, a response with `candidates`) and Bedrock `Converse`
(`messages` with `toolUse`/`toolResult` blocks, a response with `output.message`); see `gemini`
and `bedrock`; `bodies` reads a request or response body of any of them. Recordings made with
nock (`{scope, method, path, body, status, response}`) are exchanges too. An exchange whose
request is a JSON-RPC message is MCP traffic recorded beside the model calls (the tool side of
the same run): it holds no turn and is skipped.

Each request repeats the conversation so far, so exchanges overlap: an exchange whose request
starts with everything an earlier conversation holds (same roles, user and assistant text,
call and result ids) continues it, as does a Responses request naming an earlier response in
`previous_response_id`; only what is new is added, so every turn is audited once, at the line
that first shows it. Conversations are complete only up to the last response: a trailing call
waits for a request the log does not hold, so it is not reported as unanswered.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from auditor.formats import contract, responses
from auditor.formats._common import (
    Problem,
    as_id,
    attach,
    excerpt_json,
    fallback_id,
    freeze,
    positioned,
    read_each,
)
from auditor.formats.exchange import bedrock, bodies, gemini
from auditor.model import Conversation, Location, Message, ToolSpec
from auditor.sources import Record

NAME = "exchange"
KIND = contract.JSON
DETECT_KEYS = None
sniff = contract.no_sniff
inferred = contract.no_inference


def detect(record: Record) -> bool:
    value = record.value
    if isinstance(value, list):
        return bool(value) and isinstance(value[0], dict) and is_exchange(value[0])
    return isinstance(value, dict) and (
        is_exchange(value) or is_response(value) or gemini.is_request(value)
    )


def is_exchange(value: dict) -> bool:
    if isinstance(value.get("request"), dict) and "response" in value:
        return True
    # nock: the request body beside the path it went to, and the response body
    return "response" in value and isinstance(value.get("path"), str) and "body" in value


def _unwrapped(value: dict) -> dict:
    """An exchange as `{request, response}`, whatever the recorder called them."""
    if isinstance(value.get("request"), dict):
        return value
    request = {"url": f"{value.get('scope', '')}{value['path']}", "body": value["body"]}
    return {"request": request, "response": {"body": value["response"]}}


def is_response(value: dict) -> bool:
    """A response body of one of the five APIs."""
    if value.get("type") == "message" and value.get("role") == "assistant":
        # a Responses message item is shaped alike; a response body names its model
        return isinstance(value.get("content"), list) and "model" in value
    kind = value.get("object")
    if (kind == "response" and isinstance(value.get("output"), list)) or (
        kind == "chat.completion" and isinstance(value.get("choices"), list)
    ):
        return True
    if "candidates" in value:
        return gemini.is_response(value) and (
            "usageMetadata" in value or "modelVersion" in value or "responseId" in value
        )
    return "stopReason" in value and bedrock.is_response(value)


def parse(record: Record) -> Iterator[Conversation | Problem]:
    return contract.collected(Collector(), record)


class Collector(contract.Collector):
    """Joins the exchanges of one file into conversations, each turn once.

    Threads are indexed, so joining stays linear in the size of the log however many
    conversations it holds: by the response ids they produced, by their own id, and by a
    running hash of their message keys (a request continues the thread whose messages it
    starts with: each prefix hash of the request is looked up once).
    """

    def __init__(self, reread: contract.Reread | None = None) -> None:
        self._threads: list[_Thread] = []
        self._by_response: dict[str, _Thread] = {}
        self._by_own: dict[str, _Thread] = {}
        self._by_prefix: dict[int, list[_Thread]] = {}

    def add(self, record: Record) -> Iterator[Conversation | Problem]:
        value, location = record.value, record.location
        if isinstance(value, list):
            yield from read_each(_exchanges(value, location), self._exchange)
        elif is_exchange(value):
            yield from self._exchange(_unwrapped(value), location)
        elif gemini.is_request(value) and not is_response(value):
            yield from _request(value, location)
        else:
            yield from _snapshot(value, location)
        if record.document is not None:  # a document is the whole file: nothing can follow
            yield from self.finish()

    def finish(self) -> Iterator[Conversation | Problem]:
        threads, self._threads = self._threads, []
        self._by_response, self._by_own, self._by_prefix = {}, {}, {}
        yield from read_each(((t, t.location) for t in threads), _Thread.conversations)

    def _exchange(self, value: dict, location: Location) -> Iterator[Problem]:
        problems: list[Problem] = []
        sent: list[Message] = []
        tools: tuple[ToolSpec, ...] | None = None
        previous = own = None
        body, here = bodies.body(value["request"], location.child("request"), problems)
        if body is not None and "jsonrpc" in body:
            return  # MCP traffic beside the model calls: the tool side, no turn
        if body is not None:
            sent, tools = bodies.request(body, here, problems)
            previous = as_id(body.get("previous_response_id"))
            own = bodies.conversation_id(body)
        got: list[Message] = []
        response_id = None
        if isinstance(value.get("response"), dict):
            body, here = bodies.body(value["response"], location.child("response"), problems)
            if body is not None:
                got, listed = bodies.response(body, here, problems)
                response_id = as_id(body.get("id"))
                tools = (tools or ()) + listed or None
        keys = [_key(m) for m in sent]
        thread, known = self._continued(keys, previous, own)
        if thread is None:
            thread = _Thread(own or fallback_id(location), own is not None, location)
            thread.seq = len(self._threads)
            self._threads.append(thread)
            if own is not None:
                self._by_own[own] = thread
        self._unindex(thread)
        thread.adopt_ids(sent, known)
        thread.extend(sent[known:], keys[known:])
        thread.extend(got, [_key(m) for m in got])
        self._index(thread)
        thread.add_tools(tools)
        if response_id is not None:
            thread.responses.add(response_id)
            self._by_response[response_id] = thread
        yield from attach(problems, thread.id)

    def _continued(
        self, keys: list[tuple], previous: str | None, own: str | None
    ) -> tuple[_Thread | None, int]:
        """The conversation this request continues, and how many of its messages it repeats.

        A request naming the previous response, or the conversation by its id, sends only what
        is new (unless it repeats the conversation all the same); otherwise the request must
        start with everything an earlier conversation holds: the longest such conversation,
        the latest of equals.
        """
        named = self._by_response.get(previous) if previous is not None else None
        if named is None and own is not None:
            named = self._by_own.get(own)
        if named is not None:
            n = len(named.keys)
            return named, n if keys[:n] == named.keys else 0
        best: _Thread | None = None
        for n, digest in enumerate(_prefix_hashes(keys), 1):
            for thread in self._by_prefix.get(digest, ()):
                if len(thread.keys) != n or keys[:n] != thread.keys:
                    continue  # a hash collision, or an entry since extended
                if best is None or n > len(best.keys) or thread.seq > best.seq:
                    best = thread
        return best, len(best.keys) if best is not None else 0

    def _unindex(self, thread: _Thread) -> None:
        if thread.keys:
            entries = self._by_prefix.get(thread.digest)
            if entries is not None:
                entries.remove(thread)
                if not entries:
                    del self._by_prefix[thread.digest]

    def _index(self, thread: _Thread) -> None:
        if thread.keys:
            self._by_prefix.setdefault(thread.digest, []).append(thread)


def _prefix_hashes(keys: list[tuple]) -> Iterator[int]:
    """The running hash of each prefix of the keys: one step per key."""
    digest = 0
    for key in keys:
        digest = hash((digest, key))
        yield digest


def _exchanges(items: list, location: Location) -> Iterator[tuple[dict, Location] | Problem]:
    for i, item in enumerate(items):
        if isinstance(item, dict) and is_exchange(item):
            yield _unwrapped(item), location.child(i)
        else:
            yield Problem(
                location.child(i),
                "expected an exchange object with `request` and `response`",
                evidence=excerpt_json(item),
            )


class _Thread:
    """One conversation as its exchanges arrive."""

    def __init__(self, cid: str, own: bool, location: Location) -> None:
        self.id = cid
        self.own = own
        self.location = location
        self.seq = 0
        """Creation order among the file's threads."""
        self.messages: list[Message] = []
        self.keys: list[tuple] = []
        self.digest = 0
        """The running hash of `keys` (see `_prefix_hashes`)."""
        self.responses: set[str] = set()
        self.tools: dict[str, ToolSpec] = {}
        self.idless: list[int] = []
        """Messages whose calls came without ids (Gemini answers name none; the client does)."""

    def extend(self, messages: list[Message], keys: list[tuple]) -> None:
        for message, key in zip(messages, keys, strict=True):
            if any(c.id is None for c in message.tool_calls):
                self.idless.append(len(self.messages))
            self.messages.append(message)
            self.keys.append(key)
            self.digest = hash((self.digest, key))

    def adopt_ids(self, sent: list[Message], known: int) -> None:
        """Give calls logged without an id the ids a later request sends them with."""
        waiting = []
        for i in self.idless:
            if i >= known:
                waiting.append(i)
                continue
            old, new = self.messages[i], sent[i]
            if len(new.tool_calls) != len(old.tool_calls):
                continue
            calls = tuple(
                replace(c, id=n.id) if c.id is None and n.name == c.name else c
                for c, n in zip(old.tool_calls, new.tool_calls, strict=True)
            )
            self.messages[i] = replace(old, tool_calls=calls)
        self.idless = waiting

    def add_tools(self, tools: tuple[ToolSpec, ...] | None) -> None:
        for spec in tools or ():
            self.tools.setdefault(spec.name, spec)

    def conversations(self, _: Location) -> Iterator[Conversation]:
        for i, message in enumerate(self.messages):
            # Each message was made for this thread alone and is published only now: its
            # index is set in place (a `replace` per message cost 4% of a gateway log's run).
            message.index = i
        yield Conversation(
            self.id,
            NAME,
            self.location,
            tuple(self.messages),
            tools=tuple(self.tools.values()) or None,
            own_id=self.own,
            complete=False,
        )


def _key(message: Message) -> tuple:
    """What a request repeats of a message exactly: enough to tell conversations apart."""
    if message.result is not None:
        return ("tool", message.result.call_id)
    if message.role == "approval":
        request, decision = message.approval_request, message.approval_decision
        return ("approval", request and request.id, decision and decision.request_id)
    if message.tool_calls:
        # by name: a Gemini answer names no call id, the next request does; and clients fold
        # the reasoning into the text they send back (Bedrock with Kimi K2)
        return (message.role, "", tuple(c.name for c in message.tool_calls))
    return (message.role, " ".join(message.text.split()), ())


def _request(value: dict, location: Location) -> Iterator[Conversation | Problem]:
    """A Gemini `generateContent` request body on its own (`{contents, systemInstruction,
    tools}`): the conversation it sends, whole, at the places of its `contents`."""
    problems: list[Problem] = []
    drafts = gemini.request(value, location, problems)
    cid = as_id(value.get("id"))
    conversation_id = cid or fallback_id(location)
    yield from attach(problems, conversation_id)
    messages = positioned(freeze(drafts), location, ("contents",))
    tools = gemini.declared_tools(value)
    yield Conversation(
        conversation_id, NAME, location, messages, tools=tools, own_id=cid is not None
    )


def _snapshot(value: dict, location: Location) -> Iterator[Conversation | Problem]:
    problems: list[Problem] = []
    messages, listed = bodies.response(value, location, problems)
    cid = as_id(value.get("id"))
    tools = responses.declared_tools(value.get("tools"), list(listed))
    conversation_id = cid or fallback_id(location)
    yield from attach(problems, conversation_id)
    yield Conversation(
        conversation_id,
        NAME,
        location,
        tuple(replace(m, index=i) for i, m in enumerate(messages)),
        tools=tools,
        own_id=cid is not None,
        complete=False,
    )
