/**
 * Where the lock service reads time. Provided: use it as it is.
 *
 * <p>The adapter hands your {@code LockService} a clock that moves only when the checker says so.
 * Read time only through {@code clock.now()}: never {@code System.currentTimeMillis()},
 * {@code System.nanoTime()} or {@code Instant.now()}.
 */
public interface Clock {
    /** The current time in seconds (it may have a fraction). */
    double now();
}
