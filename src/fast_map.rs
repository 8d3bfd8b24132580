//! Maps and sets for the hot paths of an answer, keyed by paths and other
//! keys no one crafts: hashed with foldhash (seeded per process) instead of
//! std's SipHash. A `Path` is hashed component by component, a `write`
//! each, and SipHash pays for every `write`: a references answer through
//! the 168 files of the TypeScript SDK's `McpServer` spent a twelfth of
//! its CPU hashing paths, looking up each file's line index.

use std::collections::{HashMap, HashSet};

/// The hash of these maps' keys: fast, seeded once per process.
pub type FastHash = foldhash::fast::RandomState;

/// A `HashMap` hashed by [`FastHash`]; made with `FastMap::default()`.
pub type FastMap<K, V> = HashMap<K, V, FastHash>;

/// A `HashSet` hashed by [`FastHash`]; made with `FastSet::default()`.
pub type FastSet<T> = HashSet<T, FastHash>;
