#!/usr/bin/env python3
"""Faulty adapter: a program whose every word is an escape sequence. Its language retitles a
terminal and rings its bell; a lease names its client with one, holder and read answer with
one, renew is "not implemented" under one, and every other method refuses with a message that
clears the screen, so that nothing it sends may reach a terminal, a report or a lesson file
unescaped, not even inside a JSON string."""
import json
import sys

HOSTILE = "\u001b]0;PWNED\u0007\u001b[2J\u009b\u202e"

for line in sys.stdin:
    request = json.loads(line)
    op = request.get("op")
    if op == "hello":
        reply = {"hello": "fencing-lab-adapter", "language": "py" + HOSTILE}
    elif op in ("new", "clock"):
        reply = {"done": True}
    elif op == "acquire":
        reply = {"returned": {"token": 1, "expires_at": 10.0, "client_id": "c" + HOSTILE}}
    elif op == "renew":
        reply = {"not_implemented": "LockService.renew" + HOSTILE}
    elif op in ("holder", "read"):
        reply = {"returned": "x" + HOSTILE, "shown": "'x" + HOSTILE + "'"}
    else:
        reply = {"threw": "no" + HOSTILE}
    sys.stdout.write(json.dumps(dict({"id": request.get("id")}, **reply)) + "\n")
    sys.stdout.flush()
