//! How real systems expose the fencing token, and what the protected storage must check: the
//! table `fencing-lab systems` prints and the help's last page shows. Each row names its source;
//! a quotation is the source's own words, checked against it.

/// One real system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct System {
    /// The system's name, as `fencing-lab systems` lists it.
    pub name: &'static str,
    /// Its name for `--as` (lower case, no spaces).
    pub id: &'static str,
    /// What the lesson calls a token under `--as` ("revision"); for a system with no token, the
    /// lock service's grant number, which no storage ever sees.
    pub word: &'static str,
    /// The word in a label's few characters, before the number ("rev 4"); "t" is the plain
    /// "t4". A system with no token shows no number.
    pub mark: &'static str,
    /// Whether it hands out a number the storage can check.
    pub has_token: bool,
    /// How its numbers run, when not one a grant: every change to the store takes one (etcd's
    /// revision, ZooKeeper's zxid), so a lease's end takes a number too and grants jump. Said in
    /// the lesson's first caption.
    pub numbering: Option<&'static str>,
    /// What plays the part of the fencing token, or that there is none.
    pub token: &'static str,
    /// How a client gets it.
    pub api: &'static str,
    /// What the storage (or the write) must check with it.
    pub check: &'static str,
    /// What the source says, in its words where quoted.
    pub says: &'static str,
    /// Where it says so.
    pub source: &'static str,
    /// One line for the help page: the token and the check.
    pub short: &'static str,
}

/// Every system in the table, those with a token first.
pub const SYSTEMS: &[System] = &[
    System {
        name: "etcd",
        id: "etcd",
        word: "revision",
        mark: "rev",
        has_token: true,
        numbering: Some(
            "every change to etcd bumps its revision (a grant's create, the delete when its lease ends), so grants jump"
        ),
        token: "the lock key's revision (mod_revision, create_revision)",
        api: "the response header of the Lock call, or a Get of the lock key",
        check: "a Txn that compares the revision before it writes",
        says: "\"the lease mechanism itself doesn't guarantee mutual exclusion\"; the fix is \
               version number validation, i.e. fencing tokens",
        source: "etcd documentation, learning/why.md, \"Notes on the usage of lock and lease\"",
        short: "token: the lock key's revision; write in a Txn comparing it",
    },
    System {
        name: "ZooKeeper",
        id: "zookeeper",
        word: "zxid",
        mark: "zxid",
        has_token: true,
        numbering: Some(
            "the number shown is the zxid's counter of every change (a lock znode's create, its delete when the lease ends; the high 32 bits hold the epoch, 1 here), so grants jump"
        ),
        token: "the lock znode's zxid (czxid) or its sequence number",
        api: "the Stat of the znode the lock recipe created",
        check: "storage rejects a zxid lower than the highest it accepted",
        says: "with ZooKeeper as the lock service, use the zxid or the znode version number as \
               the fencing token",
        source: "Martin Kleppmann, \"How to do distributed locking\" (2016)",
        short: "token: the lock znode's zxid; storage rejects lower ones",
    },
    System {
        name: "Hazelcast",
        id: "hazelcast",
        word: "fence",
        mark: "fence",
        has_token: true,
        numbering: None,
        token: "the fence of a FencedLock (INVALID_FENCE = 0 when not held)",
        api: "FencedLock.lockAndGetFence(), getFence()",
        check: "storage rejects a fence lower than the highest it accepted",
        says: "\"In an asynchronous network, no lock service can guarantee mutual exclusion, \
               because there is no way to distinguish between a slow and a crashed process.\"",
        source: "Hazelcast FencedLock javadoc, com.hazelcast.cp.lock.FencedLock",
        short: "token: lockAndGetFence(); storage rejects lower fences",
    },
    System {
        name: "Redisson",
        id: "redisson",
        word: "token",
        mark: "t",
        has_token: true,
        numbering: None,
        token: "the token of an RFencedLock",
        api: "RFencedLock.lockAndGetToken(), getToken()",
        check: "token >= the previous token, as this lesson's storage does",
        says: "the documented example says \"check if token >= old token\"",
        source: "Redisson documentation, Locks and synchronizers, Fenced Lock",
        short: "token: lockAndGetToken(); storage checks token >= old",
    },
    System {
        name: "Kubernetes Lease",
        id: "kubernetes",
        word: "grant",
        mark: "",
        has_token: false,
        numbering: None,
        token: "none of its own: leaseTransitions counts leader changes, but nothing hands it \
                to your writes",
        api: "client-go tools/leaderelection",
        check: "nothing to check unless you add a token of your own",
        says: "\"This implementation does not guarantee that only one client is acting as a \
               leader (a.k.a. fencing).\"",
        source: "client-go, tools/leaderelection/leaderelection.go, package comment",
        short: "no token: client-go says it does not fence",
    },
    System {
        name: "Redlock",
        id: "redlock",
        word: "grant",
        mark: "",
        has_token: false,
        numbering: None,
        token: "none",
        api: "the Redlock algorithm over several Redis nodes",
        check: "nothing: there is no number to compare",
        says: "Redlock \"does not have any facility for generating fencing tokens\"",
        source: "Martin Kleppmann, \"How to do distributed locking\" (2016)",
        short: "no token: nothing for the storage to check",
    },
];

/// The system `--as` names, by its id.
pub fn find(id: &str) -> Option<&'static System> {
    SYSTEMS.iter().find(|s| s.id == id)
}

/// The ids `--as` takes, for its error message.
pub fn ids() -> Vec<&'static str> {
    SYSTEMS.iter().map(|s| s.id).collect()
}
