/**
 * One grant of a lock. Provided: use it as it is (you need not edit it).
 *
 * <p>The adapter sends a lease to {@code fencing-lab check} as its five fields; the checker reads
 * {@code token} and {@code expiresAt}.
 *
 * @param name the lock's name
 * @param clientId the client the lock was granted to
 * @param token the fencing token of this grant: higher than every earlier grant's
 * @param grantedAt when the lock was granted, in clock seconds
 * @param expiresAt the first moment the lease is no longer live (live while
 *     {@code clock.now() < expiresAt})
 */
public record Lease(String name, String clientId, long token, double grantedAt, double expiresAt) {}
