//! A hash that is the same in every run and build (std's `DefaultHasher`
//! is not promised to be), for names on disk: FNV-1a.

/// The 64-bit FNV-1a hash of `bytes`.
pub fn stable_hash(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3)
    })
}
