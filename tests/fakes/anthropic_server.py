"""A small local HTTP server that speaks Anthropic's Messages API, for tests.

The real ``anthropic`` SDK talks to it over HTTP (``ANTHROPIC_BASE_URL``), so retries,
timeouts, SSE parsing and tool-use round trips run exactly as in production; nothing
of Pegasus is mocked and nothing reaches the network.

Scripting
---------
``server.script([...])`` appends responses to a FIFO queue; every ``POST /v1/messages``
takes the next one (a request the fake rejects as invalid takes none). When the queue is
empty, ``server.default`` answers: a spec, or a callable ``(request_json) -> spec``.
Each item is one response (one HTTP attempt — the SDK's retries take one item each):

=================================  ================================================
item                               response
=================================  ================================================
``"Hello"``                        a text reply, ``stop_reason="end_turn"``
``["Hel", "lo"]``                  one text reply streamed as exactly these deltas
``ToolCall("add_node", {...})``    a tool-use reply (``stop_reason="tool_use"``)
``[ToolCall(...), ToolCall(...)]`` several tool calls in one reply (strings in the
                                   list become a text block before them)
``Reply(text=..., tool_calls=...,  full control: stop reason, usage, a mid-stream
stop_reason=..., usage=(i, o))``   error (``stream_error``), a stall, pacing
``Error(529)`` / ``529``           an HTTP error with Anthropic's error JSON body
``Hang(5)`` / ``{"hang": 5}``      waits 5 s before answering (``then=`` what to send
                                   after; a client timeout normally fires first)
``ToolCall(name, raw_json="{")``   malformed tool input (streamed verbatim as the
                                   ``input_json_delta``; sent as a string otherwise)
``Raw(200, "not json")``           any status/body, for protocol-level failures
``lambda request: ...``            computed from the request JSON at request time
``{"status": 500}``, ``{"text":    dict shorthands of the above; ``{"tool_calls":
...}``, ``{"hang": 2}``            [{"name": ..., "input": ...}]}``
=================================  ================================================

Errors carry ``retry-after-ms: 10`` by default so the SDK's retries are fast; a hang
takes one queue item per attempt, so script ``max_retries + 1`` of them or set
``settings.ANTHROPIC_MAX_RETRIES = 0``.

Inspecting
----------
``server.requests`` holds every request body (parsed JSON, in arrival order, including
rejected ones), ``server.headers`` their headers (lower-cased names), and
``prompt_text(request)`` flattens a request's system prompt and messages (text, tool
inputs and tool results) into one string, for asserting on what a model was shown.

Validation mirrors the real API where a client bug would otherwise go unnoticed: missing
credentials → 401; no ``model``/``max_tokens``/``messages`` → 400; an assistant
``tool_use`` not answered by a ``tool_result`` in the next user message → 400; a forced
``tool_choice`` naming an undefined tool → 400.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count
from typing import Any

__all__ = [
    "ERROR_TYPES",
    "Error",
    "FakeAnthropic",
    "Hang",
    "Raw",
    "Reply",
    "ToolCall",
    "prompt_text",
]

ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    504: "api_error",
    529: "overloaded_error",
}
_ERROR_MESSAGES = {
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "permission_error": "Permission denied",
    "not_found_error": "Not found",
    "request_too_large": "Request exceeds the maximum allowed size",
    "rate_limit_error": "Number of request tokens has exceeded your rate limit",
    "api_error": "Internal server error",
    "overloaded_error": "Overloaded",
}


@dataclass
class ToolCall:
    """One ``tool_use`` block. ``raw_json`` (if set) replaces the encoded ``input``."""

    name: str
    input: Any = field(default_factory=dict)
    id: str | None = None
    raw_json: str | None = None


@dataclass
class Reply:
    """A successful response.

    text: one text block (a list: streamed as exactly these deltas); tool_calls follow it.
    stop_reason: default ``"tool_use"`` when there are tool calls, else ``"end_turn"``.
    usage: ``(input_tokens, output_tokens)``; default: estimated from the sizes.
    stream_error: when streaming, send an SSE ``error`` event of this type (e.g.
        ``"overloaded_error"``) after the content blocks instead of finishing.
    stall_after / stall_seconds: when streaming, pause after that many SSE events.
    chunk_delay: seconds between SSE events.
    """

    text: str | list[str] | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop_reason: str | None = None
    usage: tuple[int, int] | None = None
    stream_error: str | None = None
    stall_after: int | None = None
    stall_seconds: float = 0.0
    chunk_delay: float = 0.0


@dataclass
class Error:
    """An HTTP error with Anthropic's body ``{"type": "error", "error": {...}}``."""

    status: int
    error_type: str | None = None
    message: str | None = None
    retry_after: float | None = 0.01  # seconds, sent as retry-after-ms; None: no header
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Hang:
    """Wait ``seconds`` (or until the server stops), then answer with ``then``."""

    seconds: float
    then: Any = None


@dataclass
class Raw:
    """Any status and body, verbatim."""

    status: int
    body: str | bytes = b""
    content_type: str = "application/json"


Spec = Reply | Error | Hang | Raw
Responder = Callable[[dict], Any]


def _as_spec(item: Any, request: dict) -> Spec:
    """Coerce a script item (or the default) to a spec, calling it if it is a callable."""
    if isinstance(item, Reply | Error | Hang | Raw):
        return item
    if callable(item):
        return _as_spec(item(request), request)
    if isinstance(item, str):
        return Reply(text=item)
    if isinstance(item, ToolCall):
        return Reply(tool_calls=[item])
    if isinstance(item, bool):
        raise TypeError(f"not a fake Anthropic response: {item!r}")
    if isinstance(item, int):
        return Error(item)
    if isinstance(item, list | tuple):
        texts = [part for part in item if isinstance(part, str)]
        calls = [part for part in item if isinstance(part, ToolCall)]
        if len(texts) + len(calls) != len(item):
            raise TypeError(f"a reply list holds only strings and ToolCalls: {item!r}")
        return Reply(text=texts or None, tool_calls=calls)
    if isinstance(item, dict):
        return _spec_from_dict(item)
    raise TypeError(f"not a fake Anthropic response: {item!r}")


def _spec_from_dict(item: dict) -> Spec:
    if "hang" in item:
        return Hang(float(item["hang"]), then=item.get("then"))
    if "status" in item and item["status"] >= 400:
        return Error(
            item["status"],
            error_type=item.get("type"),
            message=item.get("message"),
            retry_after=item.get("retry_after", 0.01),
        )
    calls = [
        call
        if isinstance(call, ToolCall)
        else ToolCall(call["name"], call.get("input", {}), call.get("id"), call.get("raw_json"))
        for call in item.get("tool_calls", [])
    ]
    usage = item.get("usage")
    if isinstance(usage, dict):
        usage = (usage.get("input_tokens", 0), usage.get("output_tokens", 0))
    return Reply(
        text=item.get("text"),
        tool_calls=calls,
        stop_reason=item.get("stop_reason"),
        usage=usage,
        stream_error=item.get("stream_error"),
    )


def _block_text(block: Any) -> list[str]:
    if isinstance(block, str):
        return [block]
    if not isinstance(block, dict):
        return []
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text", ""))]
    if kind == "tool_use":
        return [json.dumps(block.get("input"), ensure_ascii=False)]
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            return [text for part in content for text in _block_text(part)]
        return [str(content)] if content is not None else []
    return []


def prompt_text(request: dict) -> str:
    """Everything a model was shown in one request: the system prompt, then every
    message's text, tool inputs and tool results, one per line (tool definitions
    are left out)."""
    parts: list[str] = []
    system = request.get("system")
    if isinstance(system, str):
        parts.append(system)
    elif isinstance(system, list):
        parts.extend(text for block in system for text in _block_text(block))
    for message in request.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(text for block in content for text in _block_text(block))
    return "\n".join(parts)


def _validation_error(request: Any, headers: dict[str, str]) -> tuple[int, str] | None:
    """(status, message) for a request the real API would reject, else None."""
    if not (headers.get("x-api-key") or headers.get("authorization")):
        return 401, "x-api-key header is required"
    if not isinstance(request, dict):
        return 400, "the request body must be a JSON object"
    if not isinstance(request.get("model"), str) or not request["model"]:
        return 400, "model: field required"
    if not isinstance(request.get("max_tokens"), int) or request["max_tokens"] < 1:
        return 400, "max_tokens: field required"
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        return 400, "messages: at least one message is required"
    tool_names = {t.get("name") for t in request.get("tools") or [] if isinstance(t, dict)}
    choice = request.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "tool":
        if choice.get("name") not in tool_names:
            return 400, f"tool_choice: tool {choice.get('name')!r} is not defined"
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in {"user", "assistant"}:
            return 400, f"messages.{i}: role must be 'user' or 'assistant'"
        content = message.get("content")
        if not isinstance(content, str | list):
            return 400, f"messages.{i}.content: must be a string or a list of blocks"
        if message["role"] != "assistant" or not isinstance(content, list):
            continue
        uses = {b.get("id") for b in content if isinstance(b, dict) and b.get("type") == "tool_use"}
        if not uses or i == len(messages) - 1:
            continue
        reply = messages[i + 1].get("content") if isinstance(messages[i + 1], dict) else None
        answered = {
            b.get("tool_use_id")
            for b in (reply if isinstance(reply, list) else [])
            if isinstance(b, dict) and b.get("type") == "tool_result"
        }
        if messages[i + 1].get("role") != "user" or not uses <= answered:
            missing = ", ".join(sorted(str(u) for u in uses - answered))
            return 400, (
                f"messages.{i + 1}: `tool_use` ids were found without `tool_result` blocks "
                f"immediately after: {missing}"
            )
    return None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 30  # idle keep-alive connections close; the SDK reconnects
    disable_nagle_algorithm = True  # headers and body go out as separate writes

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.path.split("?", 1)[0] != "/v1/messages":
            self._send_error(Error(404, message=f"no route {self.path}", retry_after=None))
            return
        try:
            request: Any = json.loads(raw or b"null")
        except json.JSONDecodeError:
            request = {"_unparsed": raw.decode("utf-8", "replace")}
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake = self.server.fake
        fake._record(request, headers)
        invalid = _validation_error(request, headers)
        if invalid is not None:
            status, message = invalid
            self._send_error(Error(status, message=message, retry_after=None))
            return
        self._respond(fake._next_spec(request), request)

    def do_GET(self) -> None:
        self._send_error(Error(404, message=f"no route {self.path}", retry_after=None))

    # -- responses ------------------------------------------------------------------------------

    def _respond(self, spec: Spec, request: dict) -> None:
        fake = self.server.fake
        try:
            if isinstance(spec, Hang):
                if fake._stopping.wait(spec.seconds):
                    return
                then = spec.then if spec.then is not None else "(a late reply)"
                self._respond(_as_spec(then, request), request)
            elif isinstance(spec, Error):
                self._send_error(spec)
            elif isinstance(spec, Raw):
                body = spec.body.encode() if isinstance(spec.body, str) else spec.body
                self._send_bytes(spec.status, body, spec.content_type)
            elif request.get("stream"):
                self._send_stream(spec, request)
            else:
                self._send_json(200, fake._message(spec, request))
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            # The client gave up (its timeout fired) while this handler was still talking.
            self.close_connection = True

    def _send_bytes(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.send_header("request-id", self.server.fake._new_id("req"))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def _send_json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        self._send_bytes(status, json.dumps(payload).encode(), "application/json", headers)

    def _send_error(self, spec: Error) -> None:
        error_type = spec.error_type or ERROR_TYPES.get(spec.status, "api_error")
        message = spec.message or _ERROR_MESSAGES.get(error_type, "Error")
        headers = dict(spec.headers)
        if spec.retry_after is not None:
            headers.setdefault("retry-after-ms", str(max(1, round(spec.retry_after * 1000))))
        body = {
            "type": "error",
            "error": {"type": error_type, "message": message},
            "request_id": self.server.fake._new_id("req"),
        }
        self._send_json(spec.status, body, headers)

    def _send_stream(self, spec: Reply, request: dict) -> None:
        fake = self.server.fake
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", fake._new_id("req"))
        self.end_headers()
        sent = 0
        for event, data in fake._stream_events(spec, request):
            if spec.stall_after is not None and sent == spec.stall_after:
                if fake._stopping.wait(spec.stall_seconds):
                    return
            if spec.chunk_delay and sent and fake._stopping.wait(spec.chunk_delay):
                return
            payload = f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self.wfile.flush()
            sent += 1
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeAnthropic


class FakeAnthropic:
    """The fake Messages API. ``start()`` binds 127.0.0.1 on a free port; ``url`` is the
    base URL to give the SDK; ``stop()`` also wakes any handler that is hanging."""

    def __init__(self, default: Any = "This is a fake reply.") -> None:
        self.default: Any = default
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self._queue: deque[Any] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> FakeAnthropic:
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        assert self._server is not None, "start() the fake first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    # -- scripting ------------------------------------------------------------------------------

    def script(self, items: list[Any]) -> None:
        """Queue responses, one per request (see the module docstring)."""
        with self._lock:
            self._queue.extend(items)

    @property
    def pending(self) -> int:
        """How many scripted responses are still queued."""
        with self._lock:
            return len(self._queue)

    def prompt_texts(self) -> list[str]:
        """``prompt_text`` of every request received, in order."""
        with self._lock:
            return [prompt_text(r) if isinstance(r, dict) else "" for r in self.requests]

    # -- internals (called from handler threads) -----------------------------------------------

    def _record(self, request: Any, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)

    def _next_spec(self, request: dict) -> Spec:
        with self._lock:
            item = self._queue.popleft() if self._queue else self.default
        return _as_spec(item, request)

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}_fake{next(self._ids):04d}"

    def _blocks(self, spec: Reply) -> list[dict]:
        blocks: list[dict] = []
        if spec.text is not None:
            text = spec.text if isinstance(spec.text, str) else "".join(spec.text)
            blocks.append({"type": "text", "text": text})
        for call in spec.tool_calls:
            call_input: Any = call.input if call.raw_json is None else call.raw_json
            blocks.append(
                {
                    "type": "tool_use",
                    "id": call.id or self._new_id("toolu"),
                    "name": call.name,
                    "input": call_input,
                }
            )
        return blocks

    def _usage(self, spec: Reply, request: dict, blocks: list[dict]) -> tuple[int, int]:
        if spec.usage is not None:
            return spec.usage
        out = sum(len(json.dumps(b.get("input", b.get("text", "")))) for b in blocks)
        return max(1, len(prompt_text(request)) // 4), max(1, out // 4)

    def _stop_reason(self, spec: Reply) -> str:
        return spec.stop_reason or ("tool_use" if spec.tool_calls else "end_turn")

    def _message(self, spec: Reply, request: dict) -> dict:
        blocks = self._blocks(spec)
        input_tokens, output_tokens = self._usage(spec, request, blocks)
        return {
            "id": self._new_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": request.get("model", "claude-fake"),
            "content": blocks,
            "stop_reason": self._stop_reason(spec),
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        }

    def _stream_events(self, spec: Reply, request: dict) -> list[tuple[str, dict]]:
        """The SSE events of one streamed reply, in the order the real API sends them."""
        message = self._message(spec, request)
        usage = message["usage"]
        start = {
            **message,
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1},
        }
        events: list[tuple[str, dict]] = [
            ("message_start", {"type": "message_start", "message": start}),
            ("ping", {"type": "ping"}),
        ]
        raw_calls = iter(spec.tool_calls)
        for index, block in enumerate(message["content"]):
            if block["type"] == "text":
                events.append(
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": index,
                            "content_block": {"type": "text", "text": ""},
                        },
                    )
                )
                chunks = spec.text if isinstance(spec.text, list) else _word_chunks(block["text"])
                events.extend(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "text_delta", "text": chunk},
                        },
                    )
                    for chunk in chunks
                )
            else:
                call = next(raw_calls)
                events.append(
                    (
                        "content_block_start",
                        {
                            "type": "content_block_start",
                            "index": index,
                            "content_block": {
                                "type": "tool_use",
                                "id": block["id"],
                                "name": block["name"],
                                "input": {},
                            },
                        },
                    )
                )
                encoded = call.raw_json if call.raw_json is not None else json.dumps(call.input)
                events.extend(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": part},
                        },
                    )
                    for part in _halves(encoded)
                )
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        if spec.stream_error:
            error_type = spec.stream_error
            events.append(
                (
                    "error",
                    {
                        "type": "error",
                        "error": {
                            "type": error_type,
                            "message": _ERROR_MESSAGES.get(error_type, "Error"),
                        },
                    },
                )
            )
            return events
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        return events


def _word_chunks(text: str) -> list[str]:
    """Split text into deltas of one word each (keeping the spaces), like a model streams."""
    chunks: list[str] = []
    for word in text.split(" "):
        if chunks:
            chunks[-1] += " "
        chunks.append(word)
    return [c for c in chunks if c] or [text]


def _halves(encoded: str) -> list[str]:
    """Tool input JSON in two partial chunks, so clients must reassemble it."""
    if len(encoded) < 2:
        return [encoded] if encoded else []
    middle = len(encoded) // 2
    return [encoded[:middle], encoded[middle:]]
