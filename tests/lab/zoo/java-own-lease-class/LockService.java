import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** A lease class of the student's own in place of the starter's record (getters, no public fields), Optional from renew, a checked exception to refuse release. */
public class LockService {
    public static class NotHolder extends Exception { NotHolder(String m) { super(m); } }
    private final Clock clock;
    private final double leaseSeconds;
    private long nextToken;
    private final Map<String, Lease> grants = new HashMap<>();

    public LockService(Clock clock) { this(clock, 10.0, 1); }
    public LockService(Clock clock, double leaseSeconds, long firstToken) {
        this.clock = clock; this.leaseSeconds = leaseSeconds; this.nextToken = firstToken;
    }
    private Lease live(String name) {
        Lease g = grants.get(name);
        return g != null && clock.now() < g.getExpiresAt() ? g : null;
    }
    public Lease acquire(String name, String clientId) {
        if (live(name) != null) return null;
        double now = clock.now();
        Lease g = new Lease(name, clientId, nextToken++, now, now + leaseSeconds);
        grants.put(name, g);
        return new Lease(name, clientId, g.getToken(), now, now + leaseSeconds);
    }
    public Optional<Lease> renew(String name, String clientId, long token) {
        Lease g = live(name);
        if (g == null || !g.getClientId().equals(clientId) || g.getToken() != token) return Optional.empty();
        g.setExpiresAt(clock.now() + leaseSeconds);
        return Optional.of(new Lease(name, clientId, token, g.getGrantedAt(), g.getExpiresAt()));
    }
    public void release(String name, String clientId, long token) throws NotHolder {
        Lease g = live(name);
        if (g == null || !g.getClientId().equals(clientId) || g.getToken() != token) throw new NotHolder("not the holder");
        grants.remove(name);
    }
    public String holder(String name) {
        Lease g = live(name);
        return g == null ? null : g.getClientId();
    }
}
