/** A JavaBean lease: private fields, getters. */
public class Lease {
    private final String name;
    private final String clientId;
    private final long token;
    private final double grantedAt;
    private double expiresAt;

    public Lease(String name, String clientId, long token, double grantedAt, double expiresAt) {
        this.name = name; this.clientId = clientId; this.token = token; this.grantedAt = grantedAt; this.expiresAt = expiresAt;
    }
    public String getName() { return name; }
    public String getClientId() { return clientId; }
    public long getToken() { return token; }
    public double getGrantedAt() { return grantedAt; }
    public double getExpiresAt() { return expiresAt; }
    void setExpiresAt(double e) { expiresAt = e; }
    @Override public String toString() { return "Lease[" + name + "," + clientId + ",#" + token + ",until " + expiresAt + "]"; }
}
