//! The one way sextant takes a lock.
//!
//! Every update made under a sextant lock leaves consistent data (a push, a
//! remove, a counter), so a panic while one was held (a tool's bug, caught
//! on the blocking pool) must not make the data unreachable for every call
//! after it: a poisoned lock is taken as it is.

use std::sync::{Mutex, MutexGuard};

/// Locks `mutex`, poisoned or not.
pub fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
