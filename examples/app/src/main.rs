//! Runs the ptx-sync examples on GPU 0: each example launches one kernel of `../kernels`
//! (embedded as PTX by build.rs), checks its result exactly, and prints
//! `example <name>: ok (<what was checked>)` or `example <name>: FAILED: <why>`.
//!
//! Exit status: 0 when every example passed, 1 when one failed, 2 when there is no CUDA
//! driver here (after printing `examples: skipped: no CUDA driver (<why>)`).

use ptx_sync::Mutex;
use ptx_sync_host::{Device, Module, launch};
use std::collections::{HashMap, HashSet};
use std::process::ExitCode;
use std::time::Duration;

/// The kernel crate's PTX, built by build.rs (`ptx_sync_build` sets `KERNELS_PTX`).
const PTX: &str = include_str!(env!("KERNELS_PTX"));

/// How long a launch may take before it counts as deadlocked (`Device::wait`'s watchdog). Every
/// example finishes in well under a second.
const WATCHDOG: Duration = Duration::from_secs(20);

/// Threads per block in every example.
const BLOCK: u32 = 256;

/// Why an example failed: a wrong result, or an error of the host API (which, for a kernel that
/// never finished, leaves the GPU busy: the later examples are then not run).
enum Failed {
    Wrong(String),
    Host(ptx_sync_host::Error),
}

impl From<ptx_sync_host::Error> for Failed {
    fn from(e: ptx_sync_host::Error) -> Failed {
        Failed::Host(e)
    }
}

/// `Err(Failed::Wrong(..))` unless `ok`.
fn check(ok: bool, why: impl FnOnce() -> String) -> Result<(), Failed> {
    if ok {
        Ok(())
    } else {
        Err(Failed::Wrong(why()))
    }
}

type Example = fn(&Device, &Module) -> Result<String, Failed>;

const EXAMPLES: [(&str, Example); 4] = [
    ("first_kernel", first_kernel),
    ("producer_consumer", producer_consumer),
    ("hash_table", hash_table),
    ("grid_reduction", grid_reduction),
];

fn main() -> ExitCode {
    if let Err(ptx_sync_host::Error::NoDriver(why)) = ptx_sync_host::driver_available() {
        println!("examples: skipped: no CUDA driver ({why})");
        return ExitCode::from(2);
    }
    let opened = Device::open(0).and_then(|gpu| {
        let kernels = gpu.load_ptx_str("kernels.ptx (embedded)", PTX)?;
        Ok((gpu, kernels))
    });
    let (gpu, kernels) = match opened {
        Ok(loaded) => loaded,
        Err(e) => {
            println!("examples: FAILED: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (major, minor) = gpu.compute_capability();
    println!(
        "examples: {} (sm_{major}{minor}, {} SMs)",
        gpu.name(),
        gpu.sm_count()
    );
    let mut failed = 0;
    for (i, (name, example)) in EXAMPLES.iter().enumerate() {
        match example(&gpu, &kernels) {
            Ok(what) => println!("example {name}: ok ({what})"),
            Err(Failed::Wrong(why)) => {
                println!("example {name}: FAILED: {why}");
                failed += 1;
            }
            Err(Failed::Host(e)) => {
                println!("example {name}: FAILED: {e}");
                failed += 1;
                if matches!(e, ptx_sync_host::Error::Timeout { .. }) {
                    // The kernel is still running: everything launched after it would wait.
                    for (rest, _) in &EXAMPLES[i + 1..] {
                        println!("example {rest}: not run (an earlier kernel never finished)");
                        failed += 1;
                    }
                    break;
                }
            }
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        println!("examples: {failed} of {} failed", EXAMPLES.len());
        ExitCode::FAILURE
    }
}

/// A small deterministic generator (SplitMix64), so every run checks the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n)) as u32
    }
}

/// Example 1: the README's first kernel. The last block to finish publishes the sum of all
/// inputs.
fn first_kernel(gpu: &Device, kernels: &Module) -> Result<String, Failed> {
    let n: u32 = 1 << 20;
    let mut rng = Rng(1);
    let input: Vec<u32> = (0..n).map(|_| rng.below(1000)).collect();
    // Below 2^30: the kernel's u32 total does not wrap.
    let want: u32 = input.iter().sum();
    let input_d = gpu.upload(&input)?;
    let (total, finished, result) = (
        gpu.zeros::<u32>(1)?,
        gpu.zeros::<u32>(1)?,
        gpu.zeros::<u32>(1)?,
    );
    let blocks = n.div_ceil(BLOCK);
    unsafe {
        launch!(kernels.sum_then_publish<<<blocks, BLOCK, 0, gpu>>>(
            &input_d, n, &total, &finished, &result
        ))
    }?;
    gpu.wait(WATCHDOG)?;
    let got = [
        gpu.download(&total)?[0],
        gpu.download(&finished)?[0],
        gpu.download(&result)?[0],
    ];
    check(got == [want, blocks, want], || {
        format!("total, finished, result = {got:?}, expected [{want}, {blocks}, {want}]")
    })?;
    Ok(format!(
        "{n} inputs in {blocks} blocks of {BLOCK}: the last block published the sum {want}"
    ))
}

/// Example 2: producer blocks and consumer blocks through a ring buffer of turn-flagged
/// slots; every item must be consumed exactly once.
fn producer_consumer(gpu: &Device, kernels: &Module) -> Result<String, Failed> {
    let kernel = kernels.kernel("producer_consumer")?;
    // Consumers wait for producers (and producers for consumers once the ring is full): every
    // block must be resident, so the launch is cooperative and sized to fit.
    let limit = gpu.cooperative_limit(&kernel, BLOCK, 0)?;
    let blocks = (2 * gpu.sm_count()).min(limit.max_blocks) & !1;
    check(blocks >= 2, || {
        format!(
            "only {} block(s) fit a cooperative launch",
            limit.max_blocks
        )
    })?;
    let (producer_blocks, per_thread, cap) = (blocks / 2, 8u32, 1024u32);
    let items = producer_blocks * BLOCK * per_thread;
    let turns = gpu.zeros::<u32>(cap as usize)?;
    let data = gpu.zeros::<u32>(cap as usize)?;
    let tickets = gpu.zeros::<u32>(2)?;
    let seen = gpu.zeros::<u32>(items as usize)?;
    let sum = gpu.zeros::<u64>(1)?;
    unsafe {
        launch!(cooperative kernel<<<blocks, BLOCK, 0, gpu>>>(
            &turns, &data, cap, &tickets, producer_blocks, per_thread, &seen, &sum
        ))
    }?;
    gpu.wait(WATCHDOG)?;

    let seen = gpu.download(&seen)?;
    if let Some(item) = seen.iter().position(|&times| times != 1) {
        let wrong = seen.iter().filter(|&&times| times != 1).count();
        return Err(Failed::Wrong(format!(
            "item {item} was consumed {} times ({wrong} of {items} items not exactly once)",
            seen[item]
        )));
    }
    let (got, want) = (
        gpu.download(&sum)?[0],
        u64::from(items) * u64::from(items - 1) / 2,
    );
    check(got == want, || {
        format!("consumed sum {got}, expected {want}")
    })?;
    let tickets = gpu.download(&tickets)?;
    check(tickets == [items, items], || {
        format!("{tickets:?} tickets taken, expected [{items}, {items}]")
    })?;
    // Slot s served the tickets t < items with t % cap == s, and its last consumer handed it on.
    let turns = gpu.download(&turns)?;
    for (slot, &turn) in (0u32..).zip(&turns) {
        let rounds = items / cap + u32::from(slot < items % cap);
        check(turn == 2 * rounds, || {
            format!("slot {slot} ended at turn {turn}, expected {}", 2 * rounds)
        })?;
    }
    Ok(format!(
        "{producer_blocks} producer and {producer_blocks} consumer blocks of {BLOCK}, a ring of \
         {cap} slots: {items} items each consumed exactly once, sum {want}"
    ))
}

/// The kernel's bucket function (`kernels::bucket_of`).
fn bucket_of(key: u32, bucket_bits: u32) -> u32 {
    key.wrapping_mul(0x9E37_79B9) >> (32 - bucket_bits)
}

/// Example 3: counting keys in a hash table with one `Mutex<u32, Gpu>` per bucket.
fn hash_table(gpu: &Device, kernels: &Module) -> Result<String, Failed> {
    type BucketLock = Mutex<u32, ptx_sync::Gpu>;
    let (n, universe, bucket_bits, slots) = (1u32 << 18, 1u32 << 15, 13u32, 32u32);
    let buckets = 1u32 << bucket_bits;
    // Keys: `universe` distinct random values. A quarter of the draws pick one of 32 hot keys
    // (each then occurs about 2,000 times, so lanes of one warp often lock the same bucket),
    // the others any of the values.
    let mut rng = Rng(3);
    let mut distinct = HashSet::new();
    let values: Vec<u32> = std::iter::from_fn(|| Some(rng.next() as u32))
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

/// Example 4: a cooperative grid reduction. Per-block partial sums, a `GridBarrier`, then
/// every block sums the partials.
fn grid_reduction(gpu: &Device, kernels: &Module) -> Result<String, Failed> {
    let kernel = kernels.kernel("grid_sum")?;
    let n: u32 = 1 << 22;
    let mut rng = Rng(4);
    let input: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
    let want: u64 = input.iter().map(|&v| u64::from(v)).sum();
    let smem = BLOCK * 8; // one u64 per thread for the block's tree
    let limit = gpu.cooperative_limit(&kernel, BLOCK, smem)?;
    let blocks = (2 * gpu.sm_count()).min(limit.max_blocks);
    let input_d = gpu.upload(&input)?;
    let partials = gpu.zeros::<u64>(blocks as usize)?;
    let totals = gpu.zeros::<u64>(blocks as usize)?;
    let barrier = gpu.zeros::<u32>(1)?;
    unsafe {
        launch!(cooperative kernel<<<blocks, BLOCK, smem, gpu>>>(
            &input_d, n, &partials, &totals, &barrier
        ))
    }?;
    gpu.wait(WATCHDOG)?;
    let partial_sum: u64 = gpu.download(&partials)?.iter().sum();
    check(partial_sum == want, || {
        format!("the partials add up to {partial_sum}, expected {want}")
    })?;
    let totals = gpu.download(&totals)?;
    if let Some(b) = totals.iter().position(|&t| t != want) {
        return Err(Failed::Wrong(format!(
            "block {b} summed the partials to {}, expected {want} (it read a partial before \
             the grid barrier published it)",
            totals[b]
        )));
    }
    Ok(format!(
        "{n} inputs, {blocks} blocks of {BLOCK}: partials, GridBarrier, every block's total \
         = {want}"
    ))
}
