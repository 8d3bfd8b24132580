//! Maps and sets on the hot paths of an answer and in the caches they look
//! up (kept line indexes, open documents, the watcher's folders), keyed by
//! paths: hashed with foldhash instead of std's SipHash. A `Path` is hashed
//! component by component, a `write` each, and SipHash pays for every
//! `write`: a references answer through the 168 files of the TypeScript
//! SDK's `McpServer` spent a twelfth of its CPU hashing paths, looking up
//! each file's line index. A checked-out repository chooses its paths, so
//! what stands against crafted collisions is foldhash's seeding: random
//! per process, and again per map.

use std::collections::{HashMap, HashSet};

/// The hash of these maps' keys: fast, seeded at random per map.
pub type FastHash = foldhash::fast::RandomState;

/// A `HashMap` hashed by [`FastHash`]; made with `FastMap::default()`.
pub type FastMap<K, V> = HashMap<K, V, FastHash>;

/// A `HashSet` hashed by [`FastHash`]; made with `FastSet::default()`.
pub type FastSet<T> = HashSet<T, FastHash>;
