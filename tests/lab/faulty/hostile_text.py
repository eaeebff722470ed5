#!/usr/bin/env python3
"""Faulty adapter: a program whose every word is an escape sequence. Its language retitles a
terminal and rings its bell, and every method refuses with a message that clears the screen, so
that nothing it sends may reach a terminal, a report or a lesson file unescaped."""
import json
import sys

HOSTILE = "\u001b]0;PWNED\u0007\u001b[2J\u009b"

for line in sys.stdin:
    request = json.loads(line)
    op = request.get("op")
    if op == "hello":
        reply = {"hello": "fencing-lab-adapter", "language": "py" + HOSTILE}
    elif op in ("new", "clock"):
        reply = {"done": True}
    else:
        reply = {"threw": "no" + HOSTILE}
    sys.stdout.write(json.dumps(dict({"id": request.get("id")}, **reply)) + "\n")
    sys.stdout.flush()
