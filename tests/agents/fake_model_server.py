#!/usr/bin/env python3
"""A scripted model server for the real-agent tests (loopback only, no model).

Answers the Anthropic Messages API (POST .../messages, streamed or not) and the OpenAI
Responses API (POST .../responses, streamed) so that a real agent CLI makes the tool calls a
test wants. The script is a JSON file:

  {"anthropic": [STEP, ...], "openai": [STEP, ...], "final": "text"}

A STEP is a list of tool calls made in one turn. Anthropic calls are {"name": TOOL, "input":
{...}}; OpenAI calls are {"shell": "command line"}, sent as whichever shell tool the CLI
offers. Which step comes next is decided from the request alone (the number of turns whose
tool calls it answers; OpenAI steps are one call each), so a retried request gets the same answer. A request without tools (titles, summaries)
or whose conversation says NO_TOOLS gets the final text. Every request's path is appended to
--log, one a line, with the Host field the client sent ("POST /v1/messages
models.example.test:8765"). It listens on 127.0.0.1:--port (0: any free port), writes the
port it got into --ready once it listens, and exits after --lifetime seconds whatever happens.
"""
import argparse
import json
import os
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARGS = None
SCRIPT = {}


def sse(event, data):
    return "event: %s\ndata: %s\n\n" % (event, json.dumps(data))


def anthropic(body):
    tools = [t.get("name") for t in body.get("tools") or []]
    messages = body.get("messages") or []
    # One step per answered turn, however many calls it made.
    done = sum(1 for m in messages if isinstance(m.get("content"), list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in m["content"]))
    steps = SCRIPT.get("anthropic", [])
    calls = []
    if tools and "NO_TOOLS" not in json.dumps(messages) and done < len(steps):
        calls = steps[done]
    blocks = [{"type": "text", "text": "Step %d." % (done + 1) if calls else SCRIPT.get("final", "Done.")}]
    for c in calls:
        blocks.append({"type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": c["name"],
                       "input": c["input"]})
    stop = "tool_use" if calls else "end_turn"
    usage = {"input_tokens": 10, "output_tokens": 10}
    msg = {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
           "model": body.get("model", "fake"), "stop_reason": stop, "stop_sequence": None,
           "usage": usage}
    if not body.get("stream"):
        return "application/json", json.dumps(dict(msg, content=blocks))
    out = [sse("message_start", {"type": "message_start",
                                 "message": dict(msg, content=[], stop_reason=None)})]
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            out.append(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": ""}}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": b["text"]}}))
        else:
            out.append(sse("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": dict(b, input={})}))
            out.append(sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(b["input"])}}))
        out.append(sse("content_block_stop", {"type": "content_block_stop", "index": i}))
    out.append(sse("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 10}}))
    out.append(sse("message_stop", {"type": "message_stop"}))
    return "text/event-stream", "".join(out)


def shell_call(tools, command):
    if "exec_command" in tools:
        return "exec_command", {"cmd": command, "workdir": ARGS.project}
    if "shell_command" in tools:
        return "shell_command", {"command": command, "workdir": ARGS.project}
    return "shell", {"command": ["bash", "-lc", command], "workdir": ARGS.project}


def openai(body):
    tools = [t.get("name") or (t.get("function") or {}).get("name") or t.get("type")
             for t in body.get("tools") or []]
    items = body.get("input") or []
    done = sum(1 for it in items if isinstance(it, dict) and it.get("type", "").endswith("_output"))
    steps = SCRIPT.get("openai", [])
    calls = []
    if tools and "NO_TOOLS" not in json.dumps(items) and done < len(steps):
        calls = steps[done]
    output = []
    for c in calls:
        name, arguments = shell_call(tools, c["shell"])
        output.append({"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:16], "status": "completed",
                       "call_id": "call_" + uuid.uuid4().hex[:16], "name": name,
                       "arguments": json.dumps(arguments)})
    if not calls:
        output.append({"type": "message", "id": "msg_" + uuid.uuid4().hex[:16], "status": "completed",
                       "role": "assistant",
                       "content": [{"type": "output_text", "text": SCRIPT.get("final", "Done."),
                                    "annotations": []}]})
    response = {"id": "resp_" + uuid.uuid4().hex[:16], "object": "response", "status": "in_progress",
                "model": body.get("model", "fake"), "output": []}
    events = []

    def event(kind, **fields):
        fields["type"] = kind
        fields["sequence_number"] = len(events)
        events.append("event: %s\ndata: %s\n\n" % (kind, json.dumps(fields)))

    event("response.created", response=response)
    for i, item in enumerate(output):
        event("response.output_item.added", output_index=i, item=item)
        event("response.output_item.done", output_index=i, item=item)
    event("response.completed", response=dict(response, status="completed", output=output, usage={
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20}))
    return "text/event-stream", "".join(events)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def handle_any(self):
        size = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(size) if size else b""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        with open(ARGS.log, "a") as log:
            log.write("%s %s %s\n" % (self.command, path, self.headers.get("Host")))
        ctype, payload = "application/json", "{}"
        if self.command == "POST" and path.endswith("/count_tokens"):
            payload = json.dumps({"input_tokens": 10})
        elif self.command == "POST" and path.endswith("/messages"):
            ctype, payload = anthropic(body)
        elif self.command == "POST" and path.endswith("/responses"):
            ctype, payload = openai(body)
        elif path.endswith("/models"):
            payload = json.dumps({"object": "list", "data": [{"id": "fake", "object": "model"}], "models": []})
        data = payload.encode()
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_HEAD = handle_any


def main():
    global ARGS, SCRIPT
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--script", required=True)
    parser.add_argument("--project", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--ready", help="where to write the port once the server listens")
    parser.add_argument("--lifetime", type=float, default=600)
    ARGS = parser.parse_args()
    with open(ARGS.script) as f:
        SCRIPT = json.load(f)
    server = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    server.daemon_threads = True
    threading.Timer(ARGS.lifetime, os._exit, [0]).start()
    if ARGS.ready:
        with open(ARGS.ready + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.rename(ARGS.ready + ".tmp", ARGS.ready)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
