import java.util.TreeMap;

public class FencedStorage {
    private final TreeMap<String, String> values = new TreeMap<>();
    private final TreeMap<String, Long> highest = new TreeMap<>();

    public boolean write(String key, String value, long token) {
        Long h = highest.get(key);
        if (h != null && token < h) return false;
        values.put(key, value);
        highest.put(key, token);
        return true;
    }

    public String read(String key) { return values.get(key); }

    public Long highestToken(String key) { return highest.get(key); }
}
