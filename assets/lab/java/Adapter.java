// DO NOT EDIT. fencing-lab's adapter for Java (`fencing-lab lab init java` wrote it).
//
// `fencing-lab check .` compiles this folder (`javac -d .fencing-lab/classes *.java`) and runs
// `java -cp .fencing-lab/classes Adapter`, which answers the checker's requests on stdin, one JSON
// object a line, with one JSON reply a line on stdout (the protocol, version 2:
// docs/lab-protocol.md in fencing-lab). Needs JDK 17 or later; standard library only.
//
// The adapter does not judge: it calls your method and reports what happened.
// - It returned: {"id":N,"returned":VALUE,"shown":"..."}. VALUE is the result as JSON (a Lease as
//   {"name","clientId","token","grantedAt","expiresAt"}; a void method as null) and "shown" is
//   String.valueOf(result).
// - It threw NotImplemented: {"id":N,"not_implemented":"LockService.acquire"}.
// - It threw anything else (any Throwable, checked or not): {"id":N,"threw":"MESSAGE"}. MESSAGE is
//   the exception's message alone for RuntimeException, IllegalStateException,
//   IllegalArgumentException and Exception (the usual ways to refuse on purpose), and
//   "SimpleClassName: message" for every other class (or just the class name when there is no
//   message); an exception of the JDK's own (a NullPointerException, ...) adds where your code
//   threw it, e.g. " (at LockService.java:42)".
// fencing-lab decides what counts as a refusal, the same way for every language.
//
// Your methods are found once, at start-up, and called through method handles: a release or
// write declared `boolean` instead of `void` works too (its false is reported, and refuses).
//
// Your System.out goes to stderr, so debugging output cannot break the protocol. System.exit()
// inside a method ends the program, which the checker reports as a protocol error.

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

public final class Adapter {
    private Adapter() {}

    /** now() is the last time a `clock` request set (0 at first and after `new`). */
    private static final class ManualClock implements Clock {
        double time;

        @Override
        public double now() {
            return time;
        }

        @Override
        public String toString() {
            return "ManualClock(" + time + ")";
        }
    }

    /** A request the adapter cannot act on: its message is the reply's `threw`. */
    private static final class AdapterError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        AdapterError(String message) {
            super(message, null, false, false);
        }
    }

    // ---------------------------------------------------------------------------------------
    // Your classes' constructors and methods, looked up once. A missing or unusable one is null,
    // with the reason in MISSING, which every call of it then replies as `threw`.

    private static final MethodType NEW_DEFAULT_TYPE = MethodType.methodType(Object.class, Clock.class);
    private static final MethodType NEW_FULL_TYPE =
            MethodType.methodType(Object.class, Clock.class, double.class, long.class);
    private static final MethodType NEW_STORAGE_TYPE = MethodType.methodType(Object.class);
    private static final MethodType NAME_CLIENT_TYPE =
            MethodType.methodType(Object.class, LockService.class, String.class, String.class);
    private static final MethodType NAME_CLIENT_TOKEN_TYPE = MethodType.methodType(
            Object.class, LockService.class, String.class, String.class, long.class);
    private static final MethodType NAME_TYPE =
            MethodType.methodType(Object.class, LockService.class, String.class);
    private static final MethodType WRITE_TYPE = MethodType.methodType(
            Object.class, FencedStorage.class, String.class, String.class, long.class);
    private static final MethodType KEY_TYPE =
            MethodType.methodType(Object.class, FencedStorage.class, String.class);

    /** What is wrong with your classes, printed to stderr at start-up. */
    private static final List<String> PROBLEMS = new ArrayList<>();
    /** Why each null handle below is null, by the method's display name. */
    private static final Map<String, String> MISSING = new HashMap<>();
    /** The methods declared `void`, by name: their normal return is told as "normally". */
    private static final List<String> VOIDS = new ArrayList<>();

    private static final MethodHandle NEW_DEFAULT = constructor(LockService.class, NEW_DEFAULT_TYPE, Clock.class);
    private static final MethodHandle NEW_FULL =
            constructor(LockService.class, NEW_FULL_TYPE, Clock.class, double.class, long.class);
    private static final MethodHandle NEW_STORAGE = constructor(FencedStorage.class, NEW_STORAGE_TYPE);
    private static final MethodHandle ACQUIRE =
            method(LockService.class, "acquire", NAME_CLIENT_TYPE, String.class, String.class);
    private static final MethodHandle RENEW = method(
            LockService.class, "renew", NAME_CLIENT_TOKEN_TYPE, String.class, String.class, long.class);
    private static final MethodHandle RELEASE = method(
            LockService.class, "release", NAME_CLIENT_TOKEN_TYPE, String.class, String.class, long.class);
    private static final MethodHandle HOLDER = method(LockService.class, "holder", NAME_TYPE, String.class);
    private static final MethodHandle WRITE = method(
            FencedStorage.class, "write", WRITE_TYPE, String.class, String.class, long.class);
    private static final MethodHandle READ = method(FencedStorage.class, "read", KEY_TYPE, String.class);
    private static final MethodHandle HIGHEST_TOKEN =
            method(FencedStorage.class, "highestToken", KEY_TYPE, String.class);

    private static String signature(Class<?> owner, String name, Class<?>... params) {
        StringBuilder b = new StringBuilder(owner.getSimpleName()).append('.').append(name).append('(');
        for (int k = 0; k < params.length; k++) {
            b.append(k == 0 ? "" : ", ").append(params[k].getSimpleName());
        }
        return b.append(')').toString();
    }

    private static void missing(String display, String why) {
        String text = "adapter: cannot call " + display + ": " + why;
        MISSING.put(display, text);
        PROBLEMS.add(text);
    }

    private static MethodHandle constructor(Class<?> owner, MethodType want, Class<?>... params) {
        String display = signature(owner, "<init>", params).replace(".<init>", "");
        try {
            MethodHandle h = MethodHandles.lookup().findConstructor(owner, MethodType.methodType(void.class, params));
            return h.asType(want);
        } catch (NoSuchMethodException e) {
            missing(display, owner.getSimpleName() + " has no constructor " + display);
        } catch (IllegalAccessException e) {
            missing(display, "the constructor " + display + " is private; make it public");
        } catch (RuntimeException e) {
            missing(display, e.toString());
        }
        return null;
    }

    /** The instance method `name` of `owner` taking `params` (exactly, or after boxing), as `want`. */
    private static MethodHandle method(Class<?> owner, String name, MethodType want, Class<?>... params) {
        String display = signature(owner, name, params);
        Method exact = null;
        List<Method> sameArity = new ArrayList<>();
        for (Class<?> c = owner; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (!m.getName().equals(name) || m.isSynthetic() || m.getParameterCount() != params.length) {
                    continue;
                }
                if (exact == null && Arrays.equals(m.getParameterTypes(), params)) {
                    exact = m;
                }
                sameArity.add(m);
            }
        }
        Method m = exact != null ? exact : sameArity.size() == 1 ? sameArity.get(0) : null;
        String wanted = name + display.substring(display.indexOf('('));
        if (m == null) {
            missing(display, owner.getSimpleName() + " has no method " + wanted
                    + (sameArity.isEmpty() ? "" : " (it has " + sameArity.size() + " of that name)"));
            return null;
        }
        if (Modifier.isStatic(m.getModifiers())) {
            missing(display, m.getName() + " is static; it must be an instance method");
            return null;
        }
        try {
            MethodHandle h = MethodHandles.lookup().unreflect(m).asType(want);
            if (m.getReturnType() == void.class) {
                VOIDS.add(name);
            }
            return h;
        } catch (IllegalAccessException e) {
            missing(display, m.getName() + " is private; make it public");
        } catch (RuntimeException e) { // WrongMethodTypeException: parameters that cannot take these
            StringBuilder found = new StringBuilder(m.getReturnType().getSimpleName()).append(' ')
                    .append(name).append('(');
            for (Class<?> p : m.getParameterTypes()) {
                found.append(found.charAt(found.length() - 1) == '(' ? "" : ", ").append(p.getSimpleName());
            }
            missing(display, "it is declared " + found + "), expected " + wanted);
        }
        return null;
    }

    private static AdapterError missingError(Class<?> owner, String name, Class<?>... params) {
        String display = name == null
                ? signature(owner, "<init>", params).replace(".<init>", "")
                : signature(owner, name, params);
        return new AdapterError(MISSING.getOrDefault(display, "adapter: cannot call " + display));
    }

    // ---------------------------------------------------------------------------------------
    // The session.

    private static final ManualClock CLOCK = new ManualClock();
    private static LockService service;
    private static FencedStorage storage;
    private static String noObjects = "no `new` request yet";

    /** The method being called, for a NotImplemented that names none. */
    private static String calling;

    private static final StringBuilder OUT = new StringBuilder(256);
    /** Where the reply's `{"id":N` ends in OUT. */
    private static int idEnd;
    /** The reply's `shown`, when it has one. */
    private static String lastShown;
    private static Writer replies;

    public static void main(String[] args) throws IOException {
        // Replies go to the real stdout; everything your code prints goes to stderr. Your code
        // gets an empty System.in, so it cannot read the checker's requests.
        replies = new BufferedWriter(new OutputStreamWriter(
                new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8), 1 << 16);
        InputStream requests = System.in;
        System.setOut(System.err);
        System.setIn(new ByteArrayInputStream(new byte[0]));
        for (String problem : PROBLEMS) {
            System.err.println(problem);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(requests, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            line = line.strip();
            if (!line.isEmpty()) {
                answer(line);
            }
        }
        replies.flush();
        System.exit(0); // EOF: the checker is done (even if your code started threads)
    }

    private static void answer(String line) {
        lastShown = null;
        Object parsed;
        try {
            parsed = Json.parse(line);
        } catch (Json.Malformed e) {
            System.err.println("adapter: request is not JSON: " + line);
            OUT.setLength(0);
            OUT.append("{\"id\":null,\"threw\":");
            idEnd = "{\"id\":null".length();
            Json.string(OUT, "adapter: request is not JSON: " + e.getMessage());
            send();
            return;
        }
        if (!(parsed instanceof Map<?, ?> request)) {
            OUT.setLength(0);
            OUT.append("{\"id\":null,\"threw\":\"adapter: request is not a JSON object\"");
            idEnd = "{\"id\":null".length();
            send();
            return;
        }
        OUT.setLength(0);
        OUT.append("{\"id\":");
        Json.value(OUT, request.get("id"), 0, null);
        int mark = OUT.length();
        idEnd = mark;
        calling = null;
        try {
            dispatch(request);
        } catch (NotImplemented e) {
            OUT.setLength(mark);
            OUT.append(",\"not_implemented\":");
            String method = e.method();
            Json.string(OUT, method != null ? method : calling != null ? calling : String.valueOf(e.getMessage()));
        } catch (AdapterError e) {
            OUT.setLength(mark);
            OUT.append(",\"threw\":");
            Json.string(OUT, e.getMessage());
        } catch (Throwable e) { // anything your code threw, checked, unchecked or an Error
            OUT.setLength(mark);
            OUT.append(",\"threw\":");
            Json.string(OUT, messageOf(e));
        }
        send();
    }

    private static void dispatch(Map<?, ?> request) throws Throwable {
        Object op = request.get("op");
        switch (op instanceof String s ? s : "") {
            case "hello" -> {
                OUT.append(",\"hello\":\"fencing-lab-adapter\",\"language\":");
                Json.string(OUT, "java " + System.getProperty("java.version"));
            }
            case "new" -> {
                CLOCK.time = 0.0;
                service = null;
                storage = null;
                noObjects = "the last `new` failed";
                Object leaseField = request.get("lease_seconds");
                Object firstField = request.get("first_token");
                double leaseSeconds = leaseField == null ? 10.0 : number(request, "lease_seconds");
                long firstToken = firstField == null ? 1 : integer(request, "first_token");
                LockService s;
                if (leaseField == null && firstField == null) {
                    if (NEW_DEFAULT == null) {
                        throw missingError(LockService.class, null, Clock.class);
                    }
                    calling = "LockService(Clock)";
                    s = (LockService) (Object) NEW_DEFAULT.invokeExact((Clock) CLOCK);
                } else {
                    if (NEW_FULL == null) {
                        throw missingError(LockService.class, null, Clock.class, double.class, long.class);
                    }
                    calling = "LockService(Clock, double, long)";
                    s = (LockService) (Object) NEW_FULL.invokeExact((Clock) CLOCK, leaseSeconds, firstToken);
                }
                if (NEW_STORAGE == null) {
                    throw missingError(FencedStorage.class, null);
                }
                calling = "FencedStorage()";
                FencedStorage f = (FencedStorage) (Object) NEW_STORAGE.invokeExact();
                service = s;
                storage = f;
                OUT.append(",\"done\":true");
            }
            case "clock" -> {
                CLOCK.time = number(request, "now");
                OUT.append(",\"done\":true");
            }
            case "acquire" -> {
                LockService s = service();
                String name = string(request, "name");
                String clientId = string(request, "client_id");
                MethodHandle h = ACQUIRE;
                if (h == null) {
                    throw missingError(LockService.class, "acquire", String.class, String.class);
                }
                calling = "LockService.acquire";
                returned((Object) h.invokeExact(s, name, clientId));
            }
            case "renew", "release" -> {
                LockService s = service();
                String name = string(request, "name");
                String clientId = string(request, "client_id");
                long token = integer(request, "token");
                boolean renew = op.equals("renew");
                MethodHandle h = renew ? RENEW : RELEASE;
                if (h == null) {
                    throw missingError(LockService.class, (String) op, String.class, String.class, long.class);
                }
                calling = renew ? "LockService.renew" : "LockService.release";
                returned((Object) h.invokeExact(s, name, clientId, token), !renew && VOIDS.contains("release"));
            }
            case "holder" -> {
                LockService s = service();
                String name = string(request, "name");
                if (HOLDER == null) {
                    throw missingError(LockService.class, "holder", String.class);
                }
                calling = "LockService.holder";
                returned((Object) HOLDER.invokeExact(s, name));
            }
            case "write" -> {
                FencedStorage f = storage();
                String key = string(request, "key");
                String value = string(request, "value");
                long token = integer(request, "token");
                if (WRITE == null) {
                    throw missingError(FencedStorage.class, "write", String.class, String.class, long.class);
                }
                calling = "FencedStorage.write";
                returned((Object) WRITE.invokeExact(f, key, value, token), VOIDS.contains("write"));
            }
            case "read", "highest_token" -> {
                FencedStorage f = storage();
                String key = string(request, "key");
                boolean read = op.equals("read");
                MethodHandle h = read ? READ : HIGHEST_TOKEN;
                if (h == null) {
                    throw missingError(FencedStorage.class, read ? "read" : "highestToken", String.class);
                }
                calling = read ? "FencedStorage.read" : "FencedStorage.highestToken";
                returned((Object) h.invokeExact(f, key));
            }
            default -> {
                StringBuilder name = new StringBuilder();
                if (op instanceof String s) {
                    name.append(s);
                } else {
                    Json.value(name, op, 0, null);
                }
                throw new AdapterError("unknown op " + name);
            }
        }
    }

    private static LockService service() {
        if (service == null) {
            throw new AdapterError("adapter: no LockService: " + noObjects);
        }
        return service;
    }

    private static FencedStorage storage() {
        if (storage == null) {
            throw new AdapterError("adapter: no FencedStorage: " + noObjects);
        }
        return storage;
    }

    // ---------------------------------------------------------------------------------------
    // Request fields.

    private static AdapterError wrongField(Map<?, ?> request, String name, String kind) {
        StringBuilder got = new StringBuilder();
        if (!request.containsKey(name)) {
            got.append("nothing (the field is missing)");
        } else if (request.get(name) instanceof Double d && !Double.isFinite(d)) {
            got.append(d); // 1e400 reads as Infinity
        } else {
            Json.value(got, request.get(name), 0, null);
            if (got.length() > 100) {
                got.setLength(100);
                got.append("...");
            }
        }
        return new AdapterError("adapter: request field '" + name + "' must be " + kind + ", got " + got);
    }

    private static String string(Map<?, ?> request, String name) {
        if (request.get(name) instanceof String s) {
            return s;
        }
        throw wrongField(request, name, "a string");
    }

    private static double number(Map<?, ?> request, String name) {
        Object v = request.get(name);
        if (v instanceof Long n) {
            return n;
        }
        if (v instanceof Double d) {
            return d;
        }
        throw wrongField(request, name, "a number");
    }

    private static long integer(Map<?, ?> request, String name) {
        Object v = request.get(name);
        if (v instanceof Long n) {
            return n;
        }
        // 2.0 is an integer too; 2^63 and beyond are not a long.
        if (v instanceof Double d && d == Math.rint(d) && d >= -0x1p63 && d < 0x1p63) {
            return (long) (double) d;
        }
        throw wrongField(request, name, "an integer");
    }

    // ---------------------------------------------------------------------------------------
    // Replies.

    /** `"returned":VALUE,"shown":"..."` for what a method returned (null for a void method). */
    private static void returned(Object value) {
        returned(value, false);
    }

    /**
     * The same, for a method declared `void` when `isVoid`: it returned null, shown as
     * "normally", since a void method returns no value at all, null least of all.
     */
    private static void returned(Object value, boolean isVoid) {
        if (isVoid) {
            lastShown = "normally";
            OUT.append(",\"returned\":null,\"shown\":\"normally\"");
            return;
        }
        int mark = OUT.length();
        try {
            OUT.append(",\"returned\":");
            Json.value(OUT, value, 0, null);
        } catch (Throwable e) { // a toString() or a getter of your object threw
            OUT.setLength(mark);
            OUT.append(",\"returned\":");
            Json.string(OUT, "<" + className(value) + " that could not be read: " + messageOf(e) + ">");
        }
        OUT.append(",\"shown\":");
        String shown;
        try {
            shown = String.valueOf(value);
        } catch (Throwable e) {
            shown = "<" + className(value) + ">";
        }
        lastShown = clip(shown, 200);
        Json.string(OUT, lastShown);
    }

    private static String className(Object value) {
        String name = value.getClass().getSimpleName();
        return name.isEmpty() ? value.getClass().getName() : name;
    }

    /** At most `max` chars, cut between code points, ending in "…" when cut. */
    private static String clip(String s, int max) {
        if (s == null || s.length() <= max) {
            return s;
        }
        int end = max - 1;
        if (Character.isHighSurrogate(s.charAt(end - 1))) {
            end--;
        }
        return s.substring(0, end) + "\u2026";
    }

    /** What a throw reads as in the transcript (see the comment at the top). */
    static String messageOf(Throwable e) {
        Class<?> cls = e.getClass();
        String name = cls.getSimpleName().isEmpty() ? cls.getName() : cls.getSimpleName();
        String message;
        try {
            message = e.getMessage();
        } catch (Throwable inner) {
            message = null;
        }
        boolean plain = cls == RuntimeException.class || cls == IllegalStateException.class
                || cls == IllegalArgumentException.class || cls == Exception.class;
        Throwable cause = e.getCause();
        String text = message != null && !message.isEmpty() ? (plain ? message : name + ": " + message)
                : cause != null && cause != e ? name + ": " + messageOf(cause) // ExceptionInInitializerError, ...
                : name;
        if (!plain && !cls.getPackageName().isEmpty()) { // the JDK's own: say where it came from
            for (StackTraceElement frame : e.getStackTrace()) {
                String c = frame.getClassName();
                if (c.indexOf('.') < 0 && !c.equals("Adapter") && !c.startsWith("Adapter$")) {
                    String file = frame.getFileName() != null ? frame.getFileName() : c;
                    text += frame.getLineNumber() > 0
                            ? " (at " + file + ":" + frame.getLineNumber() + ")"
                            : " (at " + c + "." + frame.getMethodName() + ")";
                    break;
                }
            }
        }
        return clip(text, 4000);
    }

    private static void send() {
        OUT.append("}\n");
        if (OUT.length() > 300_000 && lastShown != null && utf8Length(OUT) > 1_000_000) {
            // More than the protocol's 1 MiB a line: say what came back instead.
            int size = utf8Length(OUT);
            OUT.setLength(idEnd);
            OUT.append(",\"returned\":");
            Json.string(OUT, "a value too large to send (" + size + " bytes of JSON): " + lastShown);
            OUT.append(",\"shown\":");
            Json.string(OUT, lastShown);
            OUT.append("}\n");
        }
        try {
            replies.append(OUT);
            replies.flush();
        } catch (IOException e) { // the checker went away: nothing left to answer
            System.exit(0);
        }
    }

    private static int utf8Length(CharSequence s) {
        int n = 0;
        for (int k = 0; k < s.length(); k++) {
            char c = s.charAt(k);
            n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }

    // ---------------------------------------------------------------------------------------
    // A small JSON reader and writer (RFC 8259).

    static final class Json {
        private Json() {}

        /** Not JSON: where and why. */
        static final class Malformed extends RuntimeException {
            private static final long serialVersionUID = 1L;

            Malformed(String message) {
                super(message, null, false, false);
            }
        }

        private static final int MAX_DEPTH = 200;

        /** One JSON text: a Map (objects), List, String, Long (integers that fit), Double, Boolean or null. */
        static Object parse(String text) {
            Parser r = new Parser(text);
            r.skipSpace();
            Object v = r.value(0);
            r.skipSpace();
            if (r.at < text.length()) {
                throw r.error("unexpected " + r.describe() + " after the value");
            }
            return v;
        }

        private static final class Parser {
            final String s;
            int at;

            Parser(String s) {
                this.s = s;
            }

            Malformed error(String what) {
                return new Malformed(what + " at character " + (at + 1));
            }

            String describe() {
                if (at >= s.length()) {
                    return "end of line";
                }
                int c = s.codePointAt(at);
                return c < 0x20 ? String.format("character U+%04X", c) : "'" + new String(Character.toChars(c)) + "'";
            }

            void skipSpace() {
                while (at < s.length()) {
                    char c = s.charAt(at);
                    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                        return;
                    }
                    at++;
                }
            }

            Object value(int depth) {
                if (depth > MAX_DEPTH) {
                    throw error("nested more than " + MAX_DEPTH + " deep");
                }
                if (at >= s.length()) {
                    throw error("unexpected end of line");
                }
                char c = s.charAt(at);
                switch (c) {
                    case '{':
                        return object(depth);
                    case '[':
                        return array(depth);
                    case '"':
                        return string();
                    case 't':
                        return word("true", Boolean.TRUE);
                    case 'f':
                        return word("false", Boolean.FALSE);
                    case 'n':
                        return word("null", null);
                    default:
                        if (c == '-' || (c >= '0' && c <= '9')) {
                            return number();
                        }
                        throw error("unexpected " + describe());
                }
            }

            Object word(String w, Object v) {
                if (!s.startsWith(w, at)) {
                    throw error("unexpected " + describe());
                }
                at += w.length();
                return v;
            }

            Map<String, Object> object(int depth) {
                Map<String, Object> map = new HashMap<>();
                at++; // {
                skipSpace();
                if (at < s.length() && s.charAt(at) == '}') {
                    at++;
                    return map;
                }
                while (true) {
                    skipSpace();
                    if (at >= s.length() || s.charAt(at) != '"') {
                        throw error("expected a string key, found " + describe());
                    }
                    String key = string();
                    skipSpace();
                    if (at >= s.length() || s.charAt(at) != ':') {
                        throw error("expected ':', found " + describe());
                    }
                    at++;
                    skipSpace();
                    map.put(key, value(depth + 1));
                    skipSpace();
                    if (at < s.length() && s.charAt(at) == ',') {
                        at++;
                    } else if (at < s.length() && s.charAt(at) == '}') {
                        at++;
                        return map;
                    } else {
                        throw error("expected ',' or '}', found " + describe());
                    }
                }
            }

            List<Object> array(int depth) {
                List<Object> list = new ArrayList<>();
                at++; // [
                skipSpace();
                if (at < s.length() && s.charAt(at) == ']') {
                    at++;
                    return list;
                }
                while (true) {
                    skipSpace();
                    list.add(value(depth + 1));
                    skipSpace();
                    if (at < s.length() && s.charAt(at) == ',') {
                        at++;
                    } else if (at < s.length() && s.charAt(at) == ']') {
                        at++;
                        return list;
                    } else {
                        throw error("expected ',' or ']', found " + describe());
                    }
                }
            }

            String string() {
                at++; // "
                int start = at;
                // The common case: no escapes.
                while (at < s.length()) {
                    char c = s.charAt(at);
                    if (c == '"') {
                        return s.substring(start, at++);
                    }
                    if (c == '\\' || c < 0x20) {
                        break;
                    }
                    at++;
                }
                StringBuilder b = new StringBuilder(s.length() - start).append(s, start, at);
                while (true) {
                    if (at >= s.length()) {
                        throw error("unterminated string");
                    }
                    char c = s.charAt(at);
                    if (c == '"') {
                        at++;
                        return b.toString();
                    }
                    if (c < 0x20) {
                        throw error("unescaped control " + describe() + " in a string");
                    }
                    if (c != '\\') {
                        b.append(c);
                        at++;
                        continue;
                    }
                    if (at + 1 >= s.length()) {
                        throw error("unterminated string");
                    }
                    char e = s.charAt(at + 1);
                    at += 2;
                    switch (e) {
                        case '"' -> b.append('"');
                        case '\\' -> b.append('\\');
                        case '/' -> b.append('/');
                        case 'b' -> b.append('\b');
                        case 'f' -> b.append('\f');
                        case 'n' -> b.append('\n');
                        case 'r' -> b.append('\r');
                        case 't' -> b.append('\t');
                        case 'u' -> b.append(hex4()); // a surrogate pair is two escapes, joined as they come
                        default -> {
                            at -= 1;
                            throw error("invalid escape '\\" + e + "'");
                        }
                    }
                }
            }

            char hex4() {
                if (at + 4 > s.length()) {
                    throw error("incomplete \\u escape");
                }
                int v = 0;
                for (int k = 0; k < 4; k++) {
                    int d = Character.digit(s.charAt(at + k), 16);
                    if (d < 0 || s.charAt(at + k) > 'f') {
                        throw error("invalid \\u escape");
                    }
                    v = v * 16 + d;
                }
                at += 4;
                return (char) v;
            }

            Object number() {
                int start = at;
                if (s.charAt(at) == '-') {
                    at++;
                }
                if (at < s.length() && s.charAt(at) == '0') {
                    at++;
                } else if (!digits()) {
                    throw error("invalid number");
                }
                boolean integral = true;
                if (at < s.length() && s.charAt(at) == '.') {
                    at++;
                    integral = false;
                    if (!digits()) {
                        throw error("invalid number: no digit after '.'");
                    }
                }
                if (at < s.length() && (s.charAt(at) == 'e' || s.charAt(at) == 'E')) {
                    at++;
                    integral = false;
                    if (at < s.length() && (s.charAt(at) == '+' || s.charAt(at) == '-')) {
                        at++;
                    }
                    if (!digits()) {
                        throw error("invalid number: no digit in the exponent");
                    }
                }
                String text = s.substring(start, at);
                if (integral) {
                    try {
                        return Long.parseLong(text);
                    } catch (NumberFormatException tooBig) {
                        // beyond a long: a double, like any other JSON number
                    }
                }
                return Double.parseDouble(text);
            }

            boolean digits() {
                int start = at;
                while (at < s.length() && s.charAt(at) >= '0' && s.charAt(at) <= '9') {
                    at++;
                }
                return at > start;
            }
        }

        /** A JSON string; a lone surrogate (not valid Unicode) becomes U+FFFD. */
        static void string(StringBuilder b, String s) {
            b.append('"');
            int n = s.length();
            for (int k = 0; k < n; k++) {
                char c = s.charAt(k);
                if (c >= 0x20 && c != '"' && c != '\\' && !Character.isSurrogate(c)) {
                    b.append(c);
                    continue;
                }
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    case '\b' -> b.append("\\b");
                    case '\f' -> b.append("\\f");
                    default -> {
                        if (c < 0x20) {
                            b.append("\\u00").append(Character.forDigit(c >> 4, 16)).append(Character.forDigit(c & 15, 16));
                        } else if (Character.isHighSurrogate(c) && k + 1 < n && Character.isLowSurrogate(s.charAt(k + 1))) {
                            b.append(c).append(s.charAt(++k));
                        } else {
                            b.append('\uFFFD');
                        }
                    }
                }
            }
            b.append('"');
        }

        private static final int MAX_OUT_DEPTH = 8;

        /**
         * Any Java value as JSON: null, booleans, numbers (NaN and infinities as null), strings,
         * any record (its components: the starter's Lease is one), Optional (its value), maps,
         * lists and arrays, enums (their name), and any other object (a lease class of your own)
         * as its public fields and its getters (getToken(), isLive(), or token() for a lease's
         * own names), or else its toString().
         */
        static void value(StringBuilder b, Object v, int depth, IdentityHashMap<Object, Boolean> seen) {
            if (v == null) {
                b.append("null");
            } else if (v instanceof String s) {
                string(b, s);
            } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte
                    || v instanceof java.math.BigInteger) {
                b.append(v);
            } else if (v instanceof Double || v instanceof Float) {
                number(b, ((Number) v).doubleValue());
            } else if (v instanceof java.math.BigDecimal d) {
                b.append(d);
            } else if (v instanceof Number n) { // AtomicLong, ...
                number(b, n.doubleValue());
            } else if (v instanceof Boolean) {
                b.append(v);
            } else if (v instanceof Character c) {
                string(b, c.toString());
            } else if (v instanceof Enum<?> e) {
                string(b, e.name());
            } else if (v instanceof Optional<?> o) {
                value(b, o.orElse(null), depth, seen);
            } else if (depth >= MAX_OUT_DEPTH || (seen != null && seen.containsKey(v))) {
                string(b, String.valueOf(v));
            } else {
                IdentityHashMap<Object, Boolean> path = seen != null ? seen : new IdentityHashMap<>();
                path.put(v, Boolean.TRUE);
                composite(b, v, depth, path);
                path.remove(v);
            }
        }

        private static void composite(StringBuilder b, Object v, int depth, IdentityHashMap<Object, Boolean> seen) {
            Class<?> cls = v.getClass();
            if (v instanceof Map<?, ?> map) {
                b.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    b.append(first ? "" : ",");
                    first = false;
                    string(b, String.valueOf(e.getKey()));
                    b.append(':');
                    value(b, e.getValue(), depth + 1, seen);
                }
                b.append('}');
            } else if (v instanceof Iterable<?> items) {
                b.append('[');
                boolean first = true;
                for (Object item : items) {
                    b.append(first ? "" : ",");
                    first = false;
                    value(b, item, depth + 1, seen);
                }
                b.append(']');
            } else if (cls.isArray()) {
                b.append('[');
                for (int k = 0, n = Array.getLength(v); k < n; k++) {
                    b.append(k == 0 ? "" : ",");
                    value(b, Array.get(v, k), depth + 1, seen);
                }
                b.append(']');
            } else if (cls.isRecord()) {
                b.append('{');
                boolean first = true;
                for (RecordComponent c : cls.getRecordComponents()) {
                    b.append(first ? "" : ",");
                    first = false;
                    string(b, c.getName());
                    b.append(':');
                    Object field;
                    try {
                        Method accessor = c.getAccessor();
                        accessor.setAccessible(true);
                        field = accessor.invoke(v);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        field = "<unreadable: " + e + ">";
                    }
                    value(b, field, depth + 1, seen);
                }
                b.append('}');
            } else {
                int mark = b.length();
                b.append('{');
                boolean first = true;
                java.util.Set<String> named = new java.util.HashSet<>();
                for (Field f : cls.getFields()) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    b.append(first ? "" : ",");
                    first = false;
                    named.add(f.getName());
                    string(b, f.getName());
                    b.append(':');
                    Object field;
                    try {
                        field = f.get(v);
                    } catch (IllegalAccessException | RuntimeException e) {
                        field = "<unreadable: " + e + ">";
                    }
                    value(b, field, depth + 1, seen);
                }
                for (Method m : cls.getMethods()) {
                    String property = property(m);
                    if (property == null || !named.add(property)) {
                        continue;
                    }
                    Object field;
                    try {
                        m.setAccessible(true);
                        field = m.invoke(v);
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        continue; // a getter that throws says nothing of the lease
                    }
                    b.append(first ? "" : ",");
                    first = false;
                    string(b, property);
                    b.append(':');
                    value(b, field, depth + 1, seen);
                }
                if (first) { // no public fields or getters: what it says of itself
                    b.setLength(mark);
                    string(b, String.valueOf(v));
                } else {
                    b.append('}');
                }
            }
        }

        /** A lease's own names, read by a method of that name, as a record would have them. */
        private static final java.util.Set<String> LEASE_NAMES =
                java.util.Set.of("name", "clientId", "token", "grantedAt", "expiresAt");

        /**
         * The property a public method reads, if it is a getter: getX() and isX() (a boolean) name
         * x, and a method named as a lease's own field (token(), expiresAt()) names itself. Only
         * methods that take nothing, return something and are not Object's own.
         */
        static String property(Method m) {
            if (m.getParameterCount() != 0 || m.getReturnType() == void.class
                    || m.getDeclaringClass() == Object.class || Modifier.isStatic(m.getModifiers())) {
                return null;
            }
            String name = m.getName();
            if (LEASE_NAMES.contains(name)) {
                return name;
            }
            String rest = null;
            if (name.startsWith("get") && name.length() > 3) {
                rest = name.substring(3);
            } else if (name.startsWith("is") && name.length() > 2
                    && (m.getReturnType() == boolean.class || m.getReturnType() == Boolean.class)) {
                rest = name.substring(2);
            }
            if (rest == null || !Character.isUpperCase(rest.charAt(0))) {
                return null;
            }
            return Character.toLowerCase(rest.charAt(0)) + rest.substring(1);
        }

        /** A finite double as JSON (Java's own digits, e.g. 10.0 or 1.0E-4); NaN and infinities as null. */
        static void number(StringBuilder b, double d) {
            if (Double.isFinite(d)) {
                b.append(d);
            } else {
                b.append("null");
            }
        }
    }
}
