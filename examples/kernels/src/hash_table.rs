//! Example 3: counting keys in a hash table with one `Mutex<u32, Gpu>` per bucket. The app runs
//! it in `app/examples/03-hash-table.rs`.

use ptx_sync::block::{dim_x, index_x, thread_x};
use ptx_sync::{Atomic, Gpu, Mutex, Ordering::*};

/// The bucket of `key` in a table of `1 << bucket_bits` buckets (Fibonacci hashing); the
/// app computes the same function to check the table.
#[inline(always)]
fn bucket_of(key: u32, bucket_bits: u32) -> u32 {
    key.wrapping_mul(0x9E37_79B9) >> (32 - bucket_bits)
}

/// Counts the occurrences of `keys[0..n]`, one key per thread. Bucket `b` is
/// `locks[b]` (a `Mutex<u32, Gpu>` in zeroed memory; its data is how many entries the bucket
/// uses) and the entries `table_keys/table_counts[b * slots ..][..slots]`. A thread locks its
/// key's bucket, finds the key's entry (or appends one) and adds 1 to its count. A bucket
/// that is full sets `*overflow` (the app sizes the table so that none is).
///
/// Why it is correct: the entries are plain memory, read and written only while holding the
/// bucket's mutex. Its `atom.cas.acquire.gpu` synchronizes with the previous holder's
/// `st.release.gpu`, and lanes of one warp on the same bucket hand it to each other with
/// `bar.warp.sync`, which orders their memory accesses (`Mutex` docs): each critical section
/// sees the previous one's writes, so no count is lost and no key gets two entries. Lanes of
/// one warp on different buckets lock them independently.
///
/// # Safety
/// `keys` holds `n` keys; `locks` `1 << bucket_bits` zeroed mutexes (`bucket_bits` in
/// 1..=31); `table_keys` and `table_counts` `slots << bucket_bits` zeroed `u32`s;
/// `overflow` a zeroed `u32`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn count_keys(
    keys: *const u32,
    n: u32,
    locks: *mut Mutex<u32, Gpu>,
    bucket_bits: u32,
    slots: u32,
    table_keys: *mut u32,
    table_counts: *mut u32,
    overflow: *mut u32,
) {
    let i = index_x() * dim_x() + thread_x();
    if i >= n {
        return;
    }
    // SAFETY: the buffers are as the Safety section says; a bucket's entries are only
    // touched under its lock.
    unsafe {
        let key = *keys.add(i as usize);
        let bucket = bucket_of(key, bucket_bits);
        let mut used = Mutex::from_ptr(locks.add(bucket as usize)).lock();
        let base = (bucket * slots) as usize;
        match (0..*used as usize).find(|&j| *table_keys.add(base + j) == key) {
            Some(j) => *table_counts.add(base + j) += 1,
            None if *used < slots => {
                *table_keys.add(base + *used as usize) = key;
                *table_counts.add(base + *used as usize) = 1;
                *used += 1;
            }
            None => Atomic::<u32, Gpu>::from_ptr(overflow).store(1, Relaxed),
        }
    } // the guard's drop unlocks (st.release.gpu) or hands over to the next lane
}
