/*
 * A wrong solution of the fencing-lab lab in Java (tests/lab/zoo/java-wrong-write-strict): the
 * correct one (tests/lab/zoo/java-correct) except that write needs token > highest, so the
 * holder's second write with its own token is refused. It breaks write-equal-token.
 */

import java.util.HashMap;
import java.util.Map;

/** The resource the lock protects. It knows nothing about the lock service. */
public class FencedStorage {
    private record Entry(String value, long highest) {}

    private final Map<String, Entry> entries = new HashMap<>();

    public FencedStorage() {
    }

    public void write(String key, String value, long token) {
        Entry entry = entries.get(key);
        if (entry != null && token <= entry.highest()) { // WRONG: an equal token is refused too
            throw new IllegalStateException("token " + token + " is not newer than token " + entry.highest()
                    + ", the highest key '" + key + "' has accepted");
        }
        entries.put(key, new Entry(value, token));
    }

    public String read(String key) {
        Entry entry = entries.get(key);
        return entry == null ? null : entry.value();
    }

    public Long highestToken(String key) {
        Entry entry = entries.get(key);
        return entry == null ? null : entry.highest();
    }
}
