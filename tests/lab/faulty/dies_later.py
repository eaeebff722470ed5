#!/usr/bin/env python3
"""Faulty adapter: answers hello, new and clock properly, then dies at the first acquire with a
Python traceback on stderr and exit status 1 (an uncaught exception)."""
import json
import sys


def lock_table():
    raise RuntimeError("the lock table is gone")


for line in sys.stdin:
    request = json.loads(line)
    op = request.get("op")
    if op == "hello":
        reply = {"hello": "fencing-lab-adapter", "language": "python"}
    elif op in ("new", "clock"):
        reply = {"done": True}
    elif op == "acquire":
        lock_table()  # raises: the traceback goes to stderr, the exit status is 1
    else:
        reply = {"refused": "not expected before acquire"}
    sys.stdout.write(json.dumps(dict({"id": request.get("id")}, **reply)) + "\n")
    sys.stdout.flush()
