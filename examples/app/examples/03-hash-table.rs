//! Example 3: counting keys in a hash table with one `ptx_sync::Mutex<u32, Gpu>` per bucket
//! (kernel `count_keys`, `kernels/src/hash_table.rs`). 2^18 keys, drawn from 32,768 random
//! values (a quarter of them from 32 hot keys that occur about 2,000 times each), in a table of
//! 8,192 buckets. The mutexes are an array in zeroed device memory, laid out by the host build
//! of ptx-sync (`size_of::<Mutex<u32, Gpu>>()`, `Mutex::DATA_OFFSET`). One key per thread: the
//! lanes of a warp lock different buckets, or the same one (the mutex aggregates them). Under
//! the lock a thread finds or appends its key's entry and counts it. Checked against the
//! histogram computed here: every key has one entry, in its own bucket, with its exact count;
//! every bucket's entry count; every lock released; no overflow.
//!
//! Run it on its own, in `examples/`:
//!
//! ```sh
//! cargo run --release --example 03-hash-table
//! ```
//!
//! It prints `example hash_table: ok (...)` and exits 0; on a machine without an NVIDIA driver
//! it prints `examples: skipped: no CUDA driver (...)` and exits 2. The binary `examples-app`
//! runs it together with the other examples.

use examples_app::{BLOCK, Failed, Rng, WATCHDOG, check};
use ptx_sync::Mutex;
use ptx_sync_host::{Device, Module, launch};
use std::collections::{HashMap, HashSet};
use std::process::ExitCode;

/// The name this example reports under: `example hash_table: ok (...)`.
pub const NAME: &str = "hash_table";

fn main() -> ExitCode {
    examples_app::run_examples(&[(NAME, run)])
}

/// The kernel's bucket function (`bucket_of` in `kernels/src/hash_table.rs`).
fn bucket_of(key: u32, bucket_bits: u32) -> u32 {
    key.wrapping_mul(0x9E37_79B9) >> (32 - bucket_bits)
}

/// Counting keys in a hash table with one `Mutex<u32, Gpu>` per bucket.
pub fn run(gpu: &Device, kernels: &Module) -> Result<String, Failed> {
    type BucketLock = Mutex<u32, ptx_sync::Gpu>;
    let (n, universe, bucket_bits, slots) = (1u32 << 18, 1u32 << 15, 13u32, 32u32);
    let buckets = 1u32 << bucket_bits;
    // Keys: `universe` distinct random values. A quarter of the draws pick one of 32 hot keys
    // (each then occurs about 2,000 times, so lanes of one warp often lock the same bucket),
    // the others any of the values.
    let mut rng = Rng(3);
    let mut distinct = HashSet::new();
    let values: Vec<u32> = std::iter::from_fn(|| Some(rng.next_u64() as u32))
        .filter(|v| distinct.insert(*v))
        .take(universe as usize)
        .collect();
    let keys: Vec<u32> = (0..n)
        .map(|_| match rng.below(4) {
            0 => values[rng.below(32) as usize],
            _ => values[rng.below(universe) as usize],
        })
        .collect();
    let mut want: HashMap<u32, u32> = HashMap::new();
    for &k in &keys {
        *want.entry(k).or_default() += 1;
    }
    let mut load = vec![0u32; buckets as usize];
    for &k in want.keys() {
        load[bucket_of(k, bucket_bits) as usize] += 1;
    }
    let fullest = load.iter().copied().max().unwrap_or(0);
    check(fullest <= slots, || {
        format!("the data needs {fullest} entries in one bucket, the table has {slots}")
    })?;

    // The locks: an array of `Mutex<u32, Gpu>` in zeroed device memory (zero bytes are an
    // unlocked mutex holding 0), laid out as the host build of ptx-sync says.
    let stride = size_of::<BucketLock>();
    let data_word = BucketLock::DATA_OFFSET / 4;
    assert!(stride.is_multiple_of(4) && BucketLock::DATA_OFFSET.is_multiple_of(4));
    let words_per_lock = stride / 4;
    let locks = gpu.zeros::<u32>(buckets as usize * words_per_lock)?;
    let table_keys = gpu.zeros::<u32>((buckets * slots) as usize)?;
    let table_counts = gpu.zeros::<u32>((buckets * slots) as usize)?;
    let overflow = gpu.zeros::<u32>(1)?;
    let keys_d = gpu.upload(&keys)?;
    unsafe {
        launch!(kernels.count_keys<<<n.div_ceil(BLOCK), BLOCK, 0, gpu>>>(
            &keys_d, n, &locks, bucket_bits, slots, &table_keys, &table_counts, &overflow
        ))
    }?;
    gpu.wait(WATCHDOG)?;

    check(gpu.download(&overflow)?[0] == 0, || {
        "a bucket overflowed".to_string()
    })?;
    let locks = gpu.download(&locks)?;
    let (table_keys, table_counts) = (gpu.download(&table_keys)?, gpu.download(&table_counts)?);
    let mut found = 0usize;
    let mut seen = HashSet::new();
    for (b, lock) in locks.chunks(words_per_lock).enumerate() {
        check(lock[0] == 0, || format!("bucket {b}'s lock is still held"))?;
        let used = lock[data_word];
        check(used == load[b], || {
            format!("bucket {b} has {used} entries, expected {}", load[b])
        })?;
        for j in 0..used as usize {
            let at = b * slots as usize + j;
            let (key, count) = (table_keys[at], table_counts[at]);
            check(bucket_of(key, bucket_bits) as usize == b, || {
                format!("key {key} is in bucket {b}, not its own")
            })?;
            check(seen.insert(key), || format!("key {key} has two entries"))?;
            let expected = want.get(&key).copied().unwrap_or(0);
            check(count == expected, || {
                format!("key {key} counted {count} times, expected {expected}")
            })?;
            found += 1;
        }
    }
    check(found == want.len(), || {
        format!("{found} keys in the table, expected {}", want.len())
    })?;
    let most = want.values().copied().max().unwrap_or(0);
    Ok(format!(
        "{n} keys, {} distinct (the most frequent {most} times), in {buckets} buckets with a \
         Mutex each: every key counted exactly, every lock released",
        want.len()
    ))
}
