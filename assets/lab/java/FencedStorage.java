/**
 * The resource the lock protects. It knows nothing about the lock service: it only compares
 * numbers.
 *
 * <p>The rules (from the seed problem; the whole list is at the top of LockService.java): "A
 * write is accepted when token >= highest_token(key) (the holder may write several times with its
 * token), and then the key's value and highest token are updated. A rejected write changes
 * nothing. Each key keeps its own highest token, like the lesson's fence_token column (section
 * 2.2)."
 *
 * <p>To refuse a write, throw any unchecked exception whose message says why, e.g.
 * {@code throw new IllegalStateException("token " + token + " is older than " + highest);}
 * A write that returns normally has been accepted.
 */
public class FencedStorage {
    // Add what you need, e.g. for each key its value and highest token:
    //     private final Map<String, Entry> entries = new HashMap<>();   (import java.util.*)

    /** An empty store. */
    public FencedStorage() {
    }

    /**
     * Writes {@code value} under {@code key} if {@code token >= highestToken(key)}, or if the key
     * was never written; then the key's value and highest token are updated.
     *
     * <p>Refuses (throw) a write whose token is lower than the key's highest; a rejected write
     * changes nothing. Each key keeps its own highest token. Returning normally means the write
     * was accepted.
     */
    public void write(String key, String value, long token) {
        throw new NotImplemented("FencedStorage.write");
    }

    /** The value of the last accepted write to {@code key}, or null. */
    public String read(String key) {
        throw new NotImplemented("FencedStorage.read");
    }

    /** The highest token {@code key} has accepted, or null if it was never written. */
    public Long highestToken(String key) {
        throw new NotImplemented("FencedStorage.highestToken");
    }
}
