#!/usr/bin/env python3
"""Faulty adapter: replies to every request with another request's id (a protocol error)."""
import json
import sys

for line in sys.stdin:
    request = json.loads(line)
    reply = {"id": request.get("id", 0) + 1, "hello": "fencing-lab-adapter", "language": "python"}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
