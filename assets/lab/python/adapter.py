"""DO NOT EDIT. fencing-lab's adapter for Python (`fencing-lab lab init python` wrote it).

`fencing-lab check .` runs `python3 adapter.py`, which loads your lock_service.py and answers the
checker's requests on stdin, one JSON object a line, with one JSON reply a line on stdout
(protocol version 2: docs/lab-protocol.md in fencing-lab). Needs Python 3.8 or later, standard
library only.

The adapter judges nothing: it calls your method and reports what happened, `returned` (the value,
as JSON, and its repr() as `shown`) or `threw` (the exception's message). fencing-lab decides what
that means, with the same convention for every language: raising refuses, False refuses, None from
acquire or renew is "no lease", and None (or anything but False) from release or write is success.

Your print() goes to stderr, so debugging output cannot break the protocol.
"""

import enum
import json
import math
import os
import sys
import traceback

sys.dont_write_bytecode = True  # no __pycache__ next to your code
_here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, _here)


def _reply_stream():
    """A binary stream to the real stdout. File descriptor 1 itself is pointed at stderr, so that
    nothing your code writes (print, sys.__stdout__, os.write(1, ...), a subprocess) can reach
    the protocol's stdout."""
    sys.stdout.flush()
    try:
        fd = os.dup(1)
        os.dup2(2, 1)
    except OSError:  # no stderr to point stdout at: keep stdout as it is
        return sys.stdout.buffer
    if os.name == "nt":
        import msvcrt

        msvcrt.setmode(fd, os.O_BINARY)
    return os.fdopen(fd, "wb")


_replies = _reply_stream()
sys.stdout = sys.stderr

try:
    import lock_service
except BaseException:  # a syntax error, a bad import, an exit: say so and stop
    sys.stderr.write(
        "adapter: cannot load lock_service.py (%s):\n%s"
        % (os.path.join(_here, "lock_service.py"), traceback.format_exc())
    )
    sys.stderr.flush()
    sys.exit(1)

for _name in ("LockService", "FencedStorage"):
    if not isinstance(getattr(lock_service, _name, None), type):
        sys.stderr.write("adapter: lock_service.py must define a class %s\n" % _name)
        sys.exit(1)

try:
    from not_implemented import NotImplementedYet
except ImportError:  # a solution that no longer uses the starter's file
    NotImplementedYet = None


class ManualClock:
    """now() is the last time a `clock` request set (0 at first and after `new`)."""

    def __init__(self):
        self.time = 0.0

    def now(self):
        return self.time


class AdapterError(Exception):
    """A request the adapter cannot carry out: the reply's `threw` text."""


class NotWritten(Exception):
    """The starter's "not implemented yet": the reply's `not_implemented` method name."""


_EXITS = (SystemExit, KeyboardInterrupt)  # the language's own exits: never a reply
_SHOWN_MAX = 200
_DEPTH_MAX = 3
_FIELDS_MAX = 100
_LINE_MAX = 1000000  # the protocol's limit is 1 MiB a reply line
_DUMPS = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode

_clock = ManualClock()
_service = None
_storage = None
_no_objects = "adapter: no `new` request yet"


def _safe_repr(value):
    """repr(value), or a description when repr itself raises."""
    try:
        text = repr(value)
        if isinstance(text, str):
            return text
    except _EXITS:
        raise
    except BaseException:
        pass
    try:
        return "<%s object (its repr raised)>" % type(value).__name__
    except BaseException:
        return "<an object whose repr raised>"


def _shown_text(text):
    """At most 200 characters."""
    if len(text) > _SHOWN_MAX:
        text = text[: _SHOWN_MAX - 3] + "..."
    return text


def _shown(value):
    """How Python writes the value, at most 200 characters."""
    return _shown_text(_safe_repr(value))


def _message_of(err):
    """An exception's text, with its class name unless the class is Exception or your own."""
    cls = type(err)
    name = getattr(cls, "__name__", "exception")
    try:
        message = str(err)
    except _EXITS:
        raise
    except BaseException:
        return "%s (its message cannot be shown: str() raised)" % name
    if cls is Exception or getattr(cls, "__module__", None) == "lock_service":
        return message or name
    return "%s: %s" % (name, message) if message else name


def _is_not_written(err):
    if NotImplementedYet is not None and isinstance(err, NotImplementedYet):
        return True
    return type(err).__name__ == "NotImplementedYet" and isinstance(
        getattr(err, "method", None), str
    )


_field_names = {}  # class -> its dataclass field names (or None: not a dataclass)
_EXTRA_NAMES = ("token", "expires_at", "expiresAt")


def _dataclass_names(cls):
    try:
        return _field_names[cls]
    except KeyError:
        pass
    except TypeError:  # an unhashable class
        return None
    fields = getattr(cls, "__dataclass_fields__", None)
    names = None
    if isinstance(fields, dict):
        names = tuple(
            name
            for name, f in fields.items()
            if getattr(getattr(f, "_field_type", None), "name", "_FIELD") == "_FIELD"
        )
    _field_names[cls] = names
    return names


def _slot_names(cls):
    names = []
    for klass in getattr(cls, "__mro__", ()):
        slots = klass.__dict__.get("__slots__", ())
        if isinstance(slots, str):
            slots = (slots,)
        for name in slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return names


def _object_fields(value, cls):
    """A non-builtin object's fields as (name, value) pairs, or None if it has none to show."""
    names = _dataclass_names(cls)
    if names is not None:
        return [(name, getattr(value, name)) for name in names]
    pairs = None
    try:
        attrs = object.__getattribute__(value, "__dict__")
    except AttributeError:
        attrs = None
    if isinstance(attrs, dict):
        pairs = list(attrs.items())
    slots = _slot_names(cls)
    if slots:
        pairs = pairs or []
        for name in slots:
            try:
                pairs.append((name, getattr(value, name)))
            except AttributeError:  # a slot never set
                pass
    if pairs is None:
        return None
    # A lease may keep its token or expiry behind a property.
    have = {name for name, _ in pairs}
    for name in _EXTRA_NAMES:
        if name not in have and isinstance(getattr(cls, name, None), property):
            pairs.append((name, getattr(value, name)))
    return pairs


def _key_text(key):
    """A dict key that is not a string, as JSON writes it (1 -> "1", None -> "null")."""
    if key is None or isinstance(key, (bool, int, float)):
        try:
            return json.dumps(key)
        except Exception:
            pass
    return _safe_repr(key)


_NOT_OBJECTS = (BaseException, list, tuple, set, frozenset, bytes, bytearray, enum.Enum)


def _json_value(value, depth=0):
    """The value as JSON: none, booleans, numbers and strings as themselves, a dict or an object
    as an object of its fields (to depth 3), anything else as a string saying what it is."""
    cls = type(value)
    if value is None or cls is str or cls is bool:
        return value
    if cls is int:
        return value if -(2**63) <= value < 2**64 else _safe_repr(value)
    if cls is float:
        return value if math.isfinite(value) else None
    try:
        if isinstance(value, bool):
            return bool(value)
        if isinstance(value, int):
            return _json_value(int(value), depth)
        if isinstance(value, float):
            return _json_value(float(value), depth)
        if isinstance(value, str):
            return str.__str__(value)
        if depth >= _DEPTH_MAX:
            return _safe_repr(value)
        if isinstance(value, dict):
            pairs = list(value.items())
        elif isinstance(value, tuple) and callable(getattr(value, "_asdict", None)):
            pairs = list(value._asdict().items())  # a namedtuple
        elif isinstance(value, _NOT_OBJECTS) or cls.__module__ == "builtins":
            return _safe_repr(value)  # a list, a set, a function, a class, an exception, ...
        else:
            pairs = _object_fields(value, cls)
            if pairs is None:
                return _safe_repr(value)
        obj = {}
        for key, item in pairs[:_FIELDS_MAX]:
            if type(key) is not str:
                key = _key_text(key)
            obj[key] = _json_value(item, depth + 1)
        return obj
    except _EXITS:
        raise
    except BaseException:  # an odd object: say what it is instead
        return _safe_repr(value)


def _send_line(line):
    try:
        _replies.write(line)
        _replies.flush()
    except (BrokenPipeError, ConnectionResetError):  # the checker went away: nothing to answer
        try:
            sys.stderr.flush()
        finally:
            os._exit(0)


_lone_surrogates = []


def _lone_surrogate():
    if not _lone_surrogates:
        import re

        _lone_surrogates.append(re.compile("[\ud800-\udfff]"))
    return _lone_surrogates[0]


def _send(reply):
    try:
        line = _DUMPS(reply)
    except Exception as err:  # cannot happen with _json_value's output; never crash on it
        reply = {"id": None, "threw": "adapter: reply is not JSON: %s" % _message_of(err)}
        line = _DUMPS(reply)
    if "\\ud" in line:
        # Non-BMP characters are written as surrogate pairs, which is fine; a lone surrogate
        # (not valid UTF-8 or JSON text) becomes U+FFFD.
        line = json.dumps(reply, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
        data = _lone_surrogate().sub("\ufffd", line).encode("utf-8")
    else:
        data = line.encode("ascii")
    if len(data) > _LINE_MAX and ("returned" in reply or "threw" in reply):
        if "returned" in reply:
            reply["returned"] = "a value too large to send (%d bytes of JSON): %s" % (
                len(data), reply.get("shown", ""))
        else:
            text = reply["threw"]
            reply["threw"] = "%s (cut from %d characters)" % (_shown_text(text), len(text))
        return _send(reply)
    _send_line(data + b"\n")


def _returned(value):
    return {"returned": _json_value(value), "shown": _shown(value)}


_MISSING = object()


def _describe_field(value):
    if value is _MISSING:
        return "nothing (the field is missing)"
    try:
        return json.dumps(value)
    except Exception:
        return _safe_repr(value)


def _text(request, name):
    value = request.get(name, _MISSING)
    if type(value) is str:
        return value
    raise AdapterError("adapter: request field '%s' must be a string, got %s"
                       % (name, _describe_field(value)))


def _integer(request, name):
    value = request.get(name, _MISSING)
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    raise AdapterError("adapter: request field '%s' must be an integer, got %s"
                       % (name, _describe_field(value)))


def _number(request, name):
    value = request.get(name, _MISSING)
    if type(value) is float and math.isfinite(value):
        return value
    if type(value) is int:
        return float(value)
    raise AdapterError("adapter: request field '%s' must be a number, got %s"
                       % (name, _describe_field(value)))


def _lock_service():
    if _service is None:
        raise AdapterError(_no_objects)
    return _service


def _fenced_storage():
    if _storage is None:
        raise AdapterError(_no_objects)
    return _storage


def _call(method, function, *args):
    """Calls your method; what it raised becomes NotWritten (the starter's NotImplementedYet) or
    propagates, to be replied as `threw`."""
    try:
        return function(*args)
    except _EXITS:
        raise
    except BaseException as err:
        if _is_not_written(err):
            raise NotWritten(getattr(err, "method", None) or method)
        raise


def _hello(request):
    return {"hello": "fencing-lab-adapter",
            "language": "python %d.%d.%d" % sys.version_info[:3]}


def _new(request):
    global _service, _storage, _no_objects
    _clock.time = 0.0
    _service = None
    _storage = None
    _no_objects = "adapter: no LockService and FencedStorage: the last `new` failed"
    args = [_clock]
    first_token = None
    if request.get("lease_seconds") is not None:
        args.append(_number(request, "lease_seconds"))
    if request.get("first_token") is not None:
        first_token = _integer(request, "first_token")
    if first_token is None:
        service = _call("LockService.__init__", lock_service.LockService, *args)
    elif len(args) == 2:
        service = _call("LockService.__init__", lock_service.LockService, *args, first_token)
    else:  # first_token without lease_seconds: the constructor's default lease applies
        service = _call("LockService.__init__",
                        lambda: lock_service.LockService(_clock, first_token=first_token))
    storage = _call("FencedStorage.__init__", lock_service.FencedStorage)
    _service, _storage = service, storage
    return {"done": True}


def _set_clock(request):
    _clock.time = _number(request, "now")
    return {"done": True}


def _acquire(request):
    service = _lock_service()
    name, client_id = _text(request, "name"), _text(request, "client_id")
    return _returned(_call("LockService.acquire", service.acquire, name, client_id))


def _renew(request):
    service = _lock_service()
    name, client_id = _text(request, "name"), _text(request, "client_id")
    token = _integer(request, "token")
    return _returned(_call("LockService.renew", service.renew, name, client_id, token))


def _release(request):
    service = _lock_service()
    name, client_id = _text(request, "name"), _text(request, "client_id")
    token = _integer(request, "token")
    return _returned(_call("LockService.release", service.release, name, client_id, token))


def _holder(request):
    service = _lock_service()
    name = _text(request, "name")
    return _returned(_call("LockService.holder", service.holder, name))


def _write(request):
    storage = _fenced_storage()
    key, value = _text(request, "key"), _text(request, "value")
    token = _integer(request, "token")
    return _returned(_call("FencedStorage.write", storage.write, key, value, token))


def _read(request):
    storage = _fenced_storage()
    key = _text(request, "key")
    return _returned(_call("FencedStorage.read", storage.read, key))


def _highest_token(request):
    storage = _fenced_storage()
    key = _text(request, "key")
    return _returned(_call("FencedStorage.highest_token", storage.highest_token, key))


_OPS = {
    "hello": _hello,
    "new": _new,
    "clock": _set_clock,
    "acquire": _acquire,
    "renew": _renew,
    "release": _release,
    "holder": _holder,
    "write": _write,
    "read": _read,
    "highest_token": _highest_token,
}


def _answer(request):
    """The reply to one request, without its id."""
    op = request.get("op")
    try:
        handler = _OPS.get(op)
    except TypeError:  # an unhashable op
        handler = None
    if handler is None:
        return {"threw": "unknown op %s" % (op if isinstance(op, str) else _describe_field(op))}
    try:
        return handler(request)
    except NotWritten as err:
        return {"not_implemented": err.args[0]}
    except AdapterError as err:
        return {"threw": err.args[0]}
    except _EXITS:
        raise  # sys.exit() in your code ends the program, as it would anywhere else
    except BaseException as err:  # anything your code raised, of any type
        return {"threw": _message_of(err)}


def main():
    stdin = sys.stdin.buffer
    for raw in iter(stdin.readline, b""):
        if not raw.strip():
            continue
        try:
            request = json.loads(raw.decode("utf-8"))
        except ValueError as err:  # not JSON, or not UTF-8
            _send({"id": None, "threw": "adapter: request is not JSON: %s" % err})
            continue
        if type(request) is not dict:
            _send({"id": None, "threw": "adapter: request is not JSON: not an object: %s"
                   % _describe_field(request)[:200]})
            continue
        reply = {"id": request.get("id")}
        reply.update(_answer(request))
        _send(reply)
    # End of input: the checker is done. Exit now, even if your code left threads running.
    try:
        sys.stderr.flush()
    finally:
        os._exit(0)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # Ctrl-C: stop quietly
        os._exit(130)
