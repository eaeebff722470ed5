//! The storage's rules: a write accepted, an equal token accepted, a stale one rejected and
//! changing nothing, each key's own highest, and a key never written.

use super::{highest, read, script, write, Aspect};

/// Writes with a newer token are accepted: their value read back, their token the key's highest.
pub(super) fn write_accepts() -> Vec<Aspect> {
    vec![
        vec![script(vec![
            write("file", "one", 1),
            read("file"),
            highest("file"),
            write("file", "two", 2),
            read("file"),
            highest("file"),
        ])],
        // Every accepted write updates the value, one with the key's own highest token too.
        vec![script(vec![
            write("file", "one", 1),
            write("file", "again", 1),
            read("file"),
        ])],
    ]
}

/// A write with the key's highest token itself is accepted too.
pub(super) fn write_equal_token() -> Vec<Aspect> {
    vec![vec![script(vec![
        write("file", "first", 1),
        write("file", "second", 1),
        read("file"),
        write("file", "third", 2),
        write("file", "fourth", 2),
        read("file"),
    ])]]
}

/// The verdict alone: what a rejected write leaves is rejected-changes-nothing's.
pub(super) fn write_stale_rejected() -> Vec<Aspect> {
    vec![vec![script(vec![
        write("file", "client 2's data", 2),
        write("file", "client 1's data", 1),
    ])]]
}

/// A rejected write changes neither the value nor the key's highest token.
pub(super) fn rejected_changes_nothing() -> Vec<Aspect> {
    vec![vec![script(vec![
        write("file", "five", 5),
        highest("file"),
        write("file", "three", 3),
        read("file"),
        highest("file"),
        write("file", "four", 4),
    ])]]
}

/// Each key has its own highest token: a write to one is not compared with another's.
pub(super) fn per_key() -> Vec<Aspect> {
    vec![vec![script(vec![
        write("file", "five", 5),
        write("log", "one", 1),
        highest("log"),
        highest("file"),
        read("log"),
        write("log", "two", 2),
    ])]]
}

/// A key never written reads none and highest 0, whatever other keys hold.
pub(super) fn never_written() -> Vec<Aspect> {
    vec![vec![script(vec![
        read("log"),
        highest("log"),
        write("file", "five", 5),
        read("log"),
        highest("log"),
    ])]]
}
