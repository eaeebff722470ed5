/*
 * Your lock service; the storage it protects is in FencedStorage.java.
 *
 * Fill in every method that throws NotImplemented, then run `fencing-lab check .` to see which
 * rules pass (it compiles your code first; `javac *.java` shows the compile errors, if any).
 *
 * The rules the checker tests (from the seed problem):
 *
 * - "A lease granted at time t is live while now < t + lease_seconds. At exactly t + lease_seconds
 *   it has expired and the lock is free."
 * - "One counter for the whole service: the first grant gets first_token, every later grant (of
 *   any lock name) gets the next integer. A token is never handed out twice. renew keeps the
 *   token; only a new grant makes a new one." A refused acquire uses no token.
 * - "acquire on a lock with a live lease returns None, even when the caller is the holder (use
 *   renew to keep a lock)." (None is null in Java.)
 * - "An expired lease can't be renewed or released, even if nobody has taken the lock since: the
 *   client must acquire again and gets a new token. A late release must never free someone
 *   else's lock."
 * - "The storage knows nothing about the lock service: it only compares numbers. A write is
 *   accepted when token >= highest_token(key) (the holder may write several times with its
 *   token), and then the key's value and highest token are updated. A rejected write changes
 *   nothing. Each key keeps its own highest token, like the lesson's fence_token column
 *   (section 2.2)."
 * - "Read time only through clock.now() (seconds)." Never System.currentTimeMillis(),
 *   System.nanoTime() or Instant.now().
 *
 * How to refuse (renew, release, write): throw any unchecked exception whose message says why, e.g.
 *     throw new IllegalStateException("token " + token + " is older than " + highest);
 * The message is shown in the checker's transcript. acquire and renew may also return null: no
 * lease. A release or write that returns normally has succeeded.
 *
 * System.out.println is safe for debugging: the adapter sends it to stderr.
 *
 * Lease, Clock and NotImplemented are provided; Adapter.java connects this class to the checker
 * (do not edit those two).
 */

/** A lease lock service with one fencing token counter for all its locks. */
public class LockService {
    private final Clock clock;
    private final double leaseSeconds;
    private long nextToken;
    // Add what you need, e.g. the latest grant of each lock name:
    //     private final Map<String, Grant> grants = new HashMap<>();   (import java.util.*)

    /**
     * A service with the lesson's defaults: leases last 10 seconds and the first grant gets
     * token 1.
     *
     * @param clock the only source of time: {@code clock.now()}, in seconds
     */
    public LockService(Clock clock) {
        this(clock, 10.0, 1);
    }

    /**
     * A service whose leases last {@code leaseSeconds} and whose first grant gets
     * {@code firstToken}.
     *
     * @param clock the only source of time: {@code clock.now()}, in seconds
     * @param leaseSeconds how long a lease lasts, in seconds
     * @param firstToken the token of the service's first grant
     */
    public LockService(Clock clock, double leaseSeconds, long firstToken) {
        this.clock = clock;
        this.leaseSeconds = leaseSeconds;
        this.nextToken = firstToken;
    }

    /**
     * Grants the lock to {@code clientId} if no live lease holds it.
     *
     * <p>Returns a {@link Lease} with the next token of the service's one counter and
     * {@code expiresAt = clock.now() + leaseSeconds}; or null while the lock has a live lease,
     * even the caller's own (it must renew instead). A refused acquire uses no token.
     *
     * @return the new lease, or null when the lock is taken
     */
    public Lease acquire(String name, String clientId) {
        throw new NotImplemented("LockService.acquire");
    }

    /**
     * Extends the caller's live lease to {@code clock.now() + leaseSeconds}, keeping its token,
     * and returns the lease with the new {@code expiresAt}.
     *
     * <p>Refuses (throw, or return null) when the lease has expired (even if nobody took the lock
     * since), when another client holds the lock, when {@code token} is not the caller's current
     * grant, or when the caller holds nothing. A refused renew changes nothing.
     *
     * @return the renewed lease
     */
    public Lease renew(String name, String clientId, long token) {
        throw new NotImplemented("LockService.renew");
    }

    /**
     * Frees the lock if the caller holds its live lease with {@code token}; afterwards
     * {@code holder(name)} is null and anyone may acquire it.
     *
     * <p>Refuses (throw) in the same cases as renew: a late release never frees someone else's
     * lock. Returning normally means the lock was released.
     */
    public void release(String name, String clientId, long token) {
        throw new NotImplemented("LockService.release");
    }

    /**
     * The client id holding a live lease on the lock, or null (never granted, released, or
     * expired).
     */
    public String holder(String name) {
        throw new NotImplemented("LockService.holder");
    }
}
