/**
 * DO NOT EDIT. Part of the fencing-lab adapter ({@code fencing-lab lab init java} wrote it).
 *
 * <p>The starter's methods throw {@code NotImplemented} until you write them; the adapter reports
 * such a method to {@code fencing-lab check} as "not implemented yet" instead of as a failure.
 */
public class NotImplemented extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The method still to be written, e.g. {@code "LockService.acquire"}. */
    private final String method;

    /** @param method the method still to be written, e.g. {@code "LockService.acquire"} */
    public NotImplemented(String method) {
        super("not implemented yet: " + method);
        this.method = method;
    }

    /** The method still to be written, e.g. {@code "LockService.acquire"}. */
    public String method() {
        return method;
    }
}
