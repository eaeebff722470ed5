/*
 * A wrong solution of the fencing-lab lab in Java (tests/lab/zoo/java-wrong-renew-any-token): the
 * correct one (tests/lab/zoo/java-correct) except that renew ignores the token, so it extends the
 * caller's live lease whatever token it sends. It breaks late-renew.
 */

import java.util.HashMap;
import java.util.Map;

/** A lease lock service with one fencing token counter for all its locks. */
public class LockService {
    /** The latest grant of one lock name, kept after expiry and release to explain refusals. */
    private static final class Grant {
        final String clientId;
        final long token;
        final double grantedAt;
        double expiresAt;
        boolean released;

        Grant(String clientId, long token, double grantedAt, double expiresAt) {
            this.clientId = clientId;
            this.token = token;
            this.grantedAt = grantedAt;
            this.expiresAt = expiresAt;
        }

        boolean isLiveAt(double now) {
            return !released && now < expiresAt;
        }
    }

    private final Clock clock;
    private final double leaseSeconds;
    private long nextToken;
    /** False once Long.MAX_VALUE has been handed out: a token is never reused, so no more grants. */
    private boolean tokensLeft = true;
    private final Map<String, Grant> grants = new HashMap<>();
    /** The highest clock reading seen, so a clock that steps back cannot revive a lease. */
    private double highWater = Double.NEGATIVE_INFINITY;

    public LockService(Clock clock) {
        this(clock, 10.0, 1);
    }

    public LockService(Clock clock, double leaseSeconds, long firstToken) {
        this.clock = clock;
        this.leaseSeconds = leaseSeconds;
        this.nextToken = firstToken;
    }

    /** The service's now: the highest finite clock reading seen, this one included; NaN if not finite. */
    private double now() {
        double reading = clock.now();
        if (!Double.isFinite(reading)) {
            return Double.NaN;
        }
        if (reading > highWater) {
            highWater = reading;
        }
        return highWater;
    }

    private double nowOrRefuse() {
        double now = now();
        if (Double.isNaN(now)) {
            throw new IllegalStateException("the clock read " + clock.now()
                    + ", not a finite time, so the lock service refused to act");
        }
        return now;
    }

    public Lease acquire(String name, String clientId) {
        double now = now();
        if (Double.isNaN(now) || !tokensLeft) {
            return null;
        }
        Grant grant = grants.get(name);
        if (grant != null && grant.isLiveAt(now)) {
            return null;
        }
        long token = nextToken;
        if (token == Long.MAX_VALUE) {
            tokensLeft = false;
        } else {
            nextToken = token + 1;
        }
        grant = new Grant(clientId, token, now, now + leaseSeconds);
        grants.put(name, grant);
        return new Lease(name, clientId, token, grant.grantedAt, grant.expiresAt);
    }

    /** The caller's live grant on {@code name} with {@code token}; throws saying why not. */
    private Grant held(String name, String clientId, long token, double now) {
        Grant grant = grants.get(name);
        if (grant == null || grant.released) {
            throw new IllegalStateException(clientId + " does not hold lock '" + name + "'");
        }
        if (!grant.clientId.equals(clientId)) {
            if (grant.isLiveAt(now)) {
                throw new IllegalStateException("lock '" + name + "' is held by " + grant.clientId
                        + ", not by " + clientId);
            }
            throw new IllegalStateException(clientId + " does not hold lock '" + name + "'");
        }
        if (grant.token != token) {
            throw new IllegalStateException("token " + token + " is not " + clientId
                    + "'s current lease on '" + name + "' (" + grant.token + ")");
        }
        if (!grant.isLiveAt(now)) {
            throw new IllegalStateException(clientId + "'s lease on '" + name + "' expired at "
                    + grant.expiresAt + " s");
        }
        return grant;
    }

    public Lease renew(String name, String clientId, long token) {
        double now = nowOrRefuse();
        // WRONG: checks the caller's live lease with the lease's own token, not the one sent.
        Grant grant = grants.get(name);
        grant = held(name, clientId, grant == null ? token : grant.token, now);
        grant.expiresAt = now + leaseSeconds;
        return new Lease(name, clientId, grant.token, grant.grantedAt, grant.expiresAt);
    }

    public void release(String name, String clientId, long token) {
        double now = nowOrRefuse();
        held(name, clientId, token, now).released = true;
    }

    public String holder(String name) {
        double now = now();
        Grant grant = grants.get(name);
        return grant != null && !Double.isNaN(now) && grant.isLiveAt(now) ? grant.clientId : null;
    }
}
