#!/usr/bin/env python3
"""Faulty adapter: answers every request correctly, but prints a debug line to stdout before its
first acquire reply, the classic student mistake (a protocol error: stdout is for replies only).

The lock service and storage are a correct, compact implementation of the lab's rules."""
import json
import sys


class Service:
    def __init__(self, lease_seconds=10.0, first_token=1):
        self.now = 0.0
        self.lease_seconds = lease_seconds
        self.next_token = first_token
        self.grants = {}  # name -> [client_id, token, expires_at, released]
        self.entries = {}  # key -> (value, highest token)

    def live(self, grant):
        return grant is not None and not grant[3] and self.now < grant[2]

    def acquire(self, name, client_id):
        if self.live(self.grants.get(name)):
            return {"lease": None}
        token = self.next_token
        self.next_token += 1
        self.grants[name] = [client_id, token, self.now + self.lease_seconds, False]
        return {"lease": {"token": token, "expires_at": self.now + self.lease_seconds}}

    def held(self, name, client_id, token):
        grant = self.grants.get(name)
        if grant is None or grant[3] or grant[0] != client_id or grant[1] != token:
            return None
        return grant if self.now < grant[2] else None

    def answer(self, request):
        op = request["op"]
        if op == "clock":
            self.now = float(request["now"])
            return {"done": True}
        if op == "acquire":
            return self.acquire(request["name"], request["client_id"])
        if op in ("renew", "release"):
            grant = self.held(request["name"], request["client_id"], request["token"])
            if grant is None:
                return {"refused": "not the caller's live lease"}
            if op == "release":
                grant[3] = True
                return {"done": True}
            grant[2] = self.now + self.lease_seconds
            return {"lease": {"token": grant[1], "expires_at": grant[2]}}
        if op == "holder":
            grant = self.grants.get(request["name"])
            return {"holder": grant[0] if self.live(grant) else None}
        entry = self.entries.get(request.get("key"))
        if op == "write":
            if entry is not None and request["token"] < entry[1]:
                return {"refused": "token %d is older than %d" % (request["token"], entry[1])}
            self.entries[request["key"]] = (request["value"], request["token"])
            return {"done": True}
        if op == "read":
            return {"value": None if entry is None else entry[0]}
        if op == "highest_token":
            return {"token": None if entry is None else entry[1]}
        return {"refused": "unknown op %r" % op}


service = Service()
printed = False
for line in sys.stdin:
    request = json.loads(line)
    op = request.get("op")
    if op == "hello":
        reply = {"hello": "fencing-lab-adapter", "language": "python"}
    elif op == "new":
        args = {k: request[k] for k in ("lease_seconds", "first_token") if k in request}
        service = Service(**args)
        reply = {"done": True}
    else:
        reply = service.answer(request)
    if op == "acquire" and not printed:
        print("debug: acquiring")  # the mistake: debugging output on stdout
        printed = True
    sys.stdout.write(json.dumps(dict({"id": request.get("id")}, **reply)) + "\n")
    sys.stdout.flush()
