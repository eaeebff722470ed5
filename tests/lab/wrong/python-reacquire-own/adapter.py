"""DO NOT EDIT. fencing-lab's adapter for Python (`fencing-lab lab init python` wrote it).

`fencing-lab check .` runs `python3 adapter.py`, which loads your lock_service.py and answers the
checker's requests on stdin, one JSON object a line, with one JSON reply a line on stdout (the
protocol: docs/lab-protocol.md in fencing-lab). Needs Python 3.8 or later, standard library only.

Your print() goes to stderr, so debugging output cannot break the protocol.
"""

import json
import math
import os
import sys
import traceback

# Replies go to the real stdout; everything else printed goes to stderr.
_replies = sys.stdout
sys.stdout = sys.stderr
sys.dont_write_bytecode = True  # no __pycache__ next to your code
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from not_implemented import NotImplementedYet  # noqa: F401  (the starter raises it)
    import lock_service
except BaseException:  # a syntax error, a bad import, ...: say so and stop
    sys.stderr.write("adapter: cannot load lock_service.py:\n" + traceback.format_exc())
    sys.exit(1)

for _name in ("LockService", "FencedStorage"):
    if not isinstance(getattr(lock_service, _name, None), type):
        sys.stderr.write("adapter: lock_service.py must define a class %s\n" % _name)
        sys.exit(1)


class ManualClock:
    """now() is the last time a `clock` request set (0 at first and after `new`)."""

    def __init__(self):
        self.time = 0.0

    def now(self):
        return self.time


class Refusal(Exception):
    """A method refused: the reply's `refused` text."""


_MISSING = object()
_clock = ManualClock()
_service = None
_storage = None
_new_failed = "no `new` request yet"


def _describe(value):
    try:
        return repr(value)
    except Exception:
        return "<%s>" % type(value).__name__


def _message_of(err):
    """An exception's text: the message, with the class name unless it is Exception or your own."""
    message = str(err)
    cls = type(err)
    if cls is Exception or cls.__module__ == "lock_service":
        return message or cls.__name__
    return "%s: %s" % (cls.__name__, message) if message else cls.__name__


def _attr(obj, name):
    if isinstance(obj, dict):
        return obj.get(name, _MISSING)
    return getattr(obj, name, _MISSING)


def _lease_of(method, lease):
    """What acquire or renew returned, as the reply's `lease`."""
    token = _attr(lease, "token")
    if token is _MISSING or isinstance(lease, (bool, int, float, str)):
        raise Refusal("%s returned %s, not a lease (an object or dict with a token)"
                      % (method, _describe(lease)))
    expires_at = _attr(lease, "expires_at")
    if expires_at is _MISSING:
        expires_at = _attr(lease, "expiresAt")
    return {"token": token, "expires_at": None if expires_at is _MISSING else expires_at}


def _done_of(result):
    """A release or write: None and False are refusals, anything else success."""
    if result is None or result is False:
        raise Refusal("returned %s" % result)
    return {"done": True}


def _field(request, name, kind):
    value = request.get(name)
    ok = {
        "string": isinstance(value, str),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "integer": (isinstance(value, int) and not isinstance(value, bool))
        or (isinstance(value, float) and value.is_integer()),
    }[kind]
    if not ok:
        raise Refusal("adapter: request field '%s' must be a %s, got %s"
                      % (name, kind, _describe(value)))
    return int(value) if kind == "integer" else value


def _lock_service():
    if _service is None:
        raise Refusal("no LockService: " + _new_failed)
    return _service


def _fenced_storage():
    if _storage is None:
        raise Refusal("no FencedStorage: " + _new_failed)
    return _storage


def _answer(request, call):
    """The reply to one request, without its id. `call` names the method being called."""
    global _service, _storage, _new_failed
    op = request.get("op")
    if op == "hello":
        version = "%d.%d.%d" % sys.version_info[:3]
        return {"hello": "fencing-lab-adapter", "language": "python " + version}
    if op == "new":
        _clock.time = 0.0
        _service = None
        _storage = None
        kwargs = {}
        if request.get("lease_seconds") is not None:
            kwargs["lease_seconds"] = float(_field(request, "lease_seconds", "number"))
        if request.get("first_token") is not None:
            kwargs["first_token"] = _field(request, "first_token", "integer")
        _new_failed = "the last `new` failed"
        call[0] = "LockService.__init__"
        service = lock_service.LockService(_clock, **kwargs)
        call[0] = "FencedStorage.__init__"
        _storage = lock_service.FencedStorage()
        _service = service
        return {"done": True}
    if op == "clock":
        _clock.time = float(_field(request, "now", "number"))
        return {"done": True}
    if op == "acquire":
        service = _lock_service()
        args = (_field(request, "name", "string"), _field(request, "client_id", "string"))
        call[0] = "LockService.acquire"
        lease = service.acquire(*args)
        if lease is None or lease is False:
            return {"lease": None}
        return {"lease": _lease_of("acquire", lease)}
    if op == "renew":
        service = _lock_service()
        args = (_field(request, "name", "string"), _field(request, "client_id", "string"),
                _field(request, "token", "integer"))
        call[0] = "LockService.renew"
        lease = service.renew(*args)
        if lease is None or lease is False:
            raise Refusal("returned %s" % lease)
        return {"lease": _lease_of("renew", lease)}
    if op == "release":
        service = _lock_service()
        args = (_field(request, "name", "string"), _field(request, "client_id", "string"),
                _field(request, "token", "integer"))
        call[0] = "LockService.release"
        return _done_of(service.release(*args))
    if op == "holder":
        service = _lock_service()
        name = _field(request, "name", "string")
        call[0] = "LockService.holder"
        return {"holder": service.holder(name)}
    if op == "write":
        storage = _fenced_storage()
        args = (_field(request, "key", "string"), _field(request, "value", "string"),
                _field(request, "token", "integer"))
        call[0] = "FencedStorage.write"
        return _done_of(storage.write(*args))
    if op == "read":
        storage = _fenced_storage()
        key = _field(request, "key", "string")
        call[0] = "FencedStorage.read"
        return {"value": storage.read(key)}
    if op == "highest_token":
        storage = _fenced_storage()
        key = _field(request, "key", "string")
        call[0] = "FencedStorage.highest_token"
        return {"token": storage.highest_token(key)}
    raise Refusal("adapter: unknown op %s" % _describe(op))


def _finite(value):
    """JSON has no NaN or infinity: those become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def _send(reply):
    try:
        line = json.dumps(_finite(reply), separators=(",", ":"), allow_nan=False, default=str)
    except Exception as err:
        line = json.dumps({"id": reply.get("id"), "refused": "adapter: reply is not JSON: %s"
                           % _message_of(err)})
    try:
        _replies.write(line + "\n")
        _replies.flush()
    except BrokenPipeError:  # the checker went away: nothing left to answer
        sys.stderr.close()
        os._exit(0)


def main():
    stdin = sys.stdin.buffer
    while True:
        raw = stdin.readline()
        if not raw:
            return  # EOF: the checker is done
        text = raw.decode("utf-8", errors="replace").strip()
        if not text:
            continue
        try:
            request = json.loads(text)
        except ValueError as err:
            sys.stderr.write("adapter: request is not JSON: %s\n" % text)
            _send({"id": None, "refused": "adapter: request is not JSON: %s" % err})
            continue
        if not isinstance(request, dict):
            _send({"id": None, "refused": "adapter: request is not a JSON object"})
            continue
        call = [None]
        try:
            reply = _answer(request, call)
        except Refusal as err:
            reply = {"refused": str(err)}
        except NotImplementedError as err:  # NotImplementedYet, or your own
            reply = {"not_implemented": getattr(err, "method", None) or call[0] or str(err)}
        except KeyboardInterrupt:
            raise
        except BaseException as err:  # any other exception, even SystemExit, is a refusal
            reply = {"refused": _message_of(err)}
        _send(dict({"id": request.get("id")}, **reply))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
