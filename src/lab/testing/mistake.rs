//! The mistakes students make, each named after what it gets wrong, and the one rule each breaks.

use super::super::seed::Rule;

/// One mistake a student makes (or none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mistake {
    Correct,
    /// A lease of 30 s when `new` names none.
    DefaultLease30,
    /// The first token is 0 when `new` names none.
    DefaultFirstToken0,
    /// The token counter lives outside the service, so `new` does not reset it.
    KeepsCounterAcrossNew,
    /// The grants live outside the service (a class attribute).
    KeepsGrantsAcrossNew,
    /// acquire treats every grant not released as live; holder and renew are right.
    AcquireIgnoresExpiry,
    /// A grant's lease ends a second late.
    LeaseOneSecondLonger,
    /// Live while now <= expiry, everywhere.
    ExpiryInclusive,
    /// One token counter per lock name.
    CounterPerLock,
    /// The first token is 1 whatever `new` gives.
    FirstTokenIgnored,
    /// A refused acquire still takes a token.
    RefusedAcquireBumps,
    /// The holder's acquire grants again, with a new token.
    ReacquireOwn,
    /// renew hands out a new token.
    RenewNewToken,
    /// renew returns the lease's token but uses one up.
    RenewBumpsCounter,
    /// A release takes a token from the counter.
    ReleaseBumpsCounter,
    /// renew extends from the old expiry, not from now.
    RenewFromOldExpiry,
    /// renew leaves the expiry where it was.
    RenewKeepsExpiry,
    /// An expired lease can still be renewed.
    RenewExpired,
    /// renew accepts any token of the client holding the live lease.
    RenewAnyToken,
    /// renew accepts the live lease's token from any client.
    RenewAnyClient,
    /// release answers ok but frees nothing.
    ReleaseDoesNotFree,
    /// An expired lease can still be released.
    ReleaseExpired,
    /// release frees the lock's live lease whoever asks, with whatever token.
    ReleaseByName,
    /// release frees the client's live lease whatever token it sends.
    ReleaseAnyToken,
    /// holder names the last grantee even after its lease expired.
    HolderIgnoresExpiry,
    /// holder names the client even after it released.
    HolderAfterRelease,
    /// holder returns a number.
    HolderReturnsNumber,
    /// The first write to a key is refused.
    WriteRefusesNewKey,
    /// An accepted write keeps the old value.
    WriteKeepsOldValue,
    /// An accepted write stores its value but leaves the key's highest token at its first.
    HighestNeverRises,
    /// A write needs token > highest.
    WriteStrict,
    /// Every write is accepted.
    WriteUnchecked,
    /// A stale write returns none (meant as a refusal), and is stored anyway.
    WriteReturnsNoneToRefuse,
    /// A rejected write still stores its value.
    RejectedWriteKeepsValue,
    /// A rejected write lowers the key's highest token to its own.
    RejectedWriteLowersHighest,
    /// A write is compared with the highest token of any key.
    GlobalHighest,
    /// highest_token is 0 for a key never written.
    HighestZeroForNew,
    /// read is "" for a key never written.
    ReadEmptyForNew,
    /// Time read from somewhere else than the clock (it never moves).
    OwnClock,
    /// The starter's method of this `op` not written yet.
    NotWritten(&'static str),
}

impl Mistake {
    /// Every mistake, the correct student first.
    pub const ALL: [Mistake; 46] = [
        Mistake::Correct,
        Mistake::DefaultLease30,
        Mistake::DefaultFirstToken0,
        Mistake::KeepsCounterAcrossNew,
        Mistake::KeepsGrantsAcrossNew,
        Mistake::AcquireIgnoresExpiry,
        Mistake::LeaseOneSecondLonger,
        Mistake::ExpiryInclusive,
        Mistake::CounterPerLock,
        Mistake::FirstTokenIgnored,
        Mistake::RefusedAcquireBumps,
        Mistake::ReacquireOwn,
        Mistake::RenewNewToken,
        Mistake::RenewBumpsCounter,
        Mistake::ReleaseBumpsCounter,
        Mistake::RenewFromOldExpiry,
        Mistake::RenewKeepsExpiry,
        Mistake::RenewExpired,
        Mistake::RenewAnyToken,
        Mistake::RenewAnyClient,
        Mistake::ReleaseDoesNotFree,
        Mistake::ReleaseExpired,
        Mistake::ReleaseByName,
        Mistake::ReleaseAnyToken,
        Mistake::HolderIgnoresExpiry,
        Mistake::HolderAfterRelease,
        Mistake::HolderReturnsNumber,
        Mistake::WriteRefusesNewKey,
        Mistake::WriteKeepsOldValue,
        Mistake::HighestNeverRises,
        Mistake::WriteStrict,
        Mistake::WriteUnchecked,
        Mistake::WriteReturnsNoneToRefuse,
        Mistake::RejectedWriteKeepsValue,
        Mistake::RejectedWriteLowersHighest,
        Mistake::GlobalHighest,
        Mistake::HighestZeroForNew,
        Mistake::ReadEmptyForNew,
        Mistake::OwnClock,
        Mistake::NotWritten("acquire"),
        Mistake::NotWritten("renew"),
        Mistake::NotWritten("release"),
        Mistake::NotWritten("holder"),
        Mistake::NotWritten("write"),
        Mistake::NotWritten("read"),
        Mistake::NotWritten("highest_token"),
    ];

    /// Every method a student may leave unwritten, as its `op`.
    pub const METHODS: [&'static str; 7] = [
        "acquire",
        "renew",
        "release",
        "holder",
        "write",
        "read",
        "highest_token",
    ];

    /// Every mistake but none.
    pub fn wrong() -> impl Iterator<Item = Mistake> {
        Mistake::ALL[1..].iter().copied()
    }

    /// The one rule the mistake breaks (`None`: correct, or a method not written yet).
    pub fn breaks(self) -> Option<Rule> {
        Some(match self {
            Mistake::Correct | Mistake::NotWritten(_) => return None,
            Mistake::DefaultLease30 | Mistake::DefaultFirstToken0 => Rule::Defaults,
            Mistake::KeepsCounterAcrossNew | Mistake::KeepsGrantsAcrossNew => Rule::NewStartsOver,
            Mistake::AcquireIgnoresExpiry | Mistake::LeaseOneSecondLonger => Rule::LeaseLive,
            Mistake::ExpiryInclusive => Rule::ExpiryBoundary,
            Mistake::CounterPerLock | Mistake::FirstTokenIgnored | Mistake::ReleaseBumpsCounter => {
                Rule::OneCounter
            }
            Mistake::RefusedAcquireBumps => Rule::RefusedAcquireNoToken,
            Mistake::ReacquireOwn => Rule::HolderAcquireNone,
            Mistake::RenewNewToken | Mistake::RenewBumpsCounter => Rule::RenewKeepsToken,
            Mistake::RenewFromOldExpiry | Mistake::RenewKeepsExpiry => Rule::RenewExtendsFromNow,
            Mistake::RenewExpired => Rule::ExpiredNoRenew,
            Mistake::RenewAnyToken | Mistake::RenewAnyClient => Rule::LateRenew,
            Mistake::ReleaseDoesNotFree | Mistake::HolderAfterRelease => Rule::ReleaseFrees,
            Mistake::ReleaseExpired => Rule::ExpiredNoRelease,
            Mistake::ReleaseByName | Mistake::ReleaseAnyToken => Rule::LateRelease,
            Mistake::HolderIgnoresExpiry | Mistake::HolderReturnsNumber => Rule::Holder,
            Mistake::WriteRefusesNewKey
            | Mistake::WriteKeepsOldValue
            | Mistake::HighestNeverRises => Rule::WriteAccepts,
            Mistake::WriteStrict => Rule::WriteEqualToken,
            Mistake::WriteUnchecked | Mistake::WriteReturnsNoneToRefuse => Rule::WriteStaleRejected,
            Mistake::RejectedWriteKeepsValue | Mistake::RejectedWriteLowersHighest => {
                Rule::RejectedChangesNothing
            }
            Mistake::GlobalHighest => Rule::PerKey,
            Mistake::HighestZeroForNew | Mistake::ReadEmptyForNew => Rule::NeverWritten,
            Mistake::OwnClock => Rule::ClockOnly,
        })
    }
}
