//! The lock half of the calling-pattern matrix: Mutex, SpinLock, TicketLock,
//! BinarySemaphore, `Semaphore<_, 4>` holding one unit (a lock) and holding four (counting),
//! each called the ways kernels call them, with exact counts:
//! - `_warp_shapes_global`: 32 objects in global memory, every SM x 256 threads, 4 iterations,
//!   seven shapes in turn: lane `l` on object `l % 2`; on `(l + it) % 32` (32 objects); odd
//!   lanes only; lane 0 only; a data-dependent subset (`hash(16 g + it)` odd) on 3 objects;
//!   every thread on one object (all warps of all blocks); two locks nested in a fixed order
//!   (`l % 2`, then `2 + l % 3`).
//! - `_warp_shapes_shared`: the same shapes on 32 objects per block in shared memory (Cta
//!   scope), 8 iterations.
//! - `_bucket_table`: 65,536 per-bucket locks, 4 inserts per thread of random keys with
//!   duplicates (one in 8 one of 16 hot keys): every key stored once, with its exact count.
//!
//! In each critical section the count is a plain (non-atomic) read-modify-write, so only
//! mutual exclusion keeps it exact, between the two halves of a holders probe (holders now,
//! most holders ever, per object): a lock must show exactly 1 where it was used, the counting
//! semaphore at most 4. A Mutex's own `u32` data counts its sections too, and every object must
//! be free again at the end. Expected counts are recomputed here from the kernels' own formulas
//! (patterns_locks_plan.rs, shared as source with tests/kernels/src/patterns_locks.rs).

#[path = "patterns_locks_plan.rs"]
mod plan;

use crate::{Ctx, GpuTest};
use plan::*;
use ptx_sync_host::cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};
use ptx_sync_host::ptx_sync::{BinarySemaphore, Cta, Gpu, Mutex, Semaphore, SpinLock, TicketLock};
use ptx_sync_testkit::{launch_config, one_thread, Result};
use std::collections::BTreeMap;
use std::mem::size_of;
use std::time::{Duration, Instant};

const TIMEOUT: Duration = Duration::from_secs(60);
const THREADS: u32 = 256;

/// The shapes of `objects`, by number.
const SHAPES: [(u32, &str); 7] = [
    (0, "lanes_2_objects"),
    (1, "lanes_32_objects"),
    (2, "odd_lanes"),
    (3, "lane_0_only"),
    (4, "data_dependent_lanes"),
    (5, "all_threads_one_object"),
    (6, "nested_2_locks"),
];

/// One lock kind: its kernels' prefix and what the kernels' `Lock` impl says about it.
struct Kind {
    /// `pattern_<kernel>_{global,shared,table}`.
    kernel: &'static str,
    /// Bytes of one object at Device scope and at Cta scope (host build of ptx-sync).
    size_gpu: usize,
    size_cta: usize,
    /// Holders admitted at once (free units when idle).
    units: u32,
    /// Whether its own data counts its sections (Mutex<u32>).
    has_data: bool,
}

const MUTEX: Kind = Kind {
    kernel: "mutex",
    size_gpu: size_of::<Mutex<u32, Gpu>>(),
    size_cta: size_of::<Mutex<u32, Cta>>(),
    units: 1,
    has_data: true,
};
const SPINLOCK: Kind = Kind {
    kernel: "spinlock",
    size_gpu: size_of::<SpinLock<Gpu>>(),
    size_cta: size_of::<SpinLock<Cta>>(),
    units: 1,
    has_data: false,
};
const TICKETLOCK: Kind = Kind {
    kernel: "ticketlock",
    size_gpu: size_of::<TicketLock<(), Gpu>>(),
    size_cta: size_of::<TicketLock<(), Cta>>(),
    units: 1,
    has_data: false,
};
const BINARY_SEMAPHORE: Kind = Kind {
    kernel: "binary_semaphore",
    size_gpu: size_of::<BinarySemaphore<Gpu>>(),
    size_cta: size_of::<BinarySemaphore<Cta>>(),
    units: 1,
    has_data: false,
};
const SEMAPHORE_AS_LOCK: Kind = Kind {
    kernel: "semaphore_as_lock",
    size_gpu: size_of::<Semaphore<Gpu, 4>>(),
    size_cta: size_of::<Semaphore<Cta, 4>>(),
    units: 1,
    has_data: false,
};
/// The kernels' `Counting<S, 4>` is `repr(transparent)` over `Semaphore<S, 4>`.
const SEMAPHORE_COUNTING: Kind = Kind {
    kernel: "semaphore_counting",
    size_gpu: size_of::<Semaphore<Gpu, 4>>(),
    size_cta: size_of::<Semaphore<Cta, 4>>(),
    units: 4,
    has_data: false,
};

/// Sections per object of block `block` (threads `0..THREADS`), added into `counts`.
fn expect_block(counts: &mut [u32], shape: u32, block: u32, iters: u32) {
    for t in 0..THREADS {
        let g = block * THREADS + t;
        for it in 0..iters {
            let (a, b) = objects(shape, t, g, it);
            if a != NONE {
                counts[a as usize] += 1;
                if b != NONE {
                    counts[b as usize] += 1;
                }
            }
        }
    }
}

/// `1,234,567`.
fn n(x: impl Into<u64>) -> String {
    let s = x.into().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The kernels' object sizes must be the host's (allocations and shared memory are sized
/// from the host's).
fn check_sizes(ctx: &Ctx) -> Result<()> {
    let host = [
        MUTEX.size_gpu,
        SPINLOCK.size_gpu,
        TICKETLOCK.size_gpu,
        BINARY_SEMAPHORE.size_gpu,
        SEMAPHORE_AS_LOCK.size_gpu,
        SEMAPHORE_COUNTING.size_gpu,
        MUTEX.size_cta,
        SPINLOCK.size_cta,
        TICKETLOCK.size_cta,
        BINARY_SEMAPHORE.size_cta,
        SEMAPHORE_AS_LOCK.size_cta,
        SEMAPHORE_COUNTING.size_cta,
    ];
    let kernel = ctx.kernel("pattern_lock_sizes")?;
    let out = ctx.gpu.zeros::<u32>(host.len())?;
    let mut b = ctx.gpu.stream().launch_builder(kernel.function());
    b.arg(&out);
    unsafe { ctx.launch_and_wait(b, one_thread(), TIMEOUT) }?;
    let dev = ctx.gpu.download(&out)?;
    let host: Vec<u32> = host.iter().map(|&s| s as u32).collect();
    if dev != host {
        return Err(format!(
            "object sizes differ: kernels {dev:?}, host build of ptx-sync {host:?}"
        )
        .into());
    }
    Ok(())
}

/// Checks one object's results against its expected sections `want`; pushes what is wrong.
#[allow(clippy::too_many_arguments)]
fn check_object(
    k: &Kind,
    wrong: &mut Vec<String>,
    at: &str,
    want: u32,
    count: u32,
    holders: u32,
    most: u32,
    data: u32,
    free: u32,
) {
    let most_ok = if want == 0 {
        most == 0
    } else {
        (1..=k.units).contains(&most)
    };
    let data_want = if k.has_data { want } else { 0 };
    if count != want || holders != 0 || !most_ok || data != data_want || free != k.units {
        wrong.push(format!(
            "{at}: count {count} (expected {want}), holders left {holders}, most holders {most} \
             (allowed {}), data {data} (expected {data_want}), free {free} (expected {})",
            if want == 0 {
                "0".to_string()
            } else {
                format!("1..={}", k.units)
            },
            k.units
        ));
    }
}

fn verdict(k: &Kind, wrong: &[String], most_seen: u32) -> Result<String> {
    if !wrong.is_empty() {
        return Err(format!(
            "{} objects wrong: {}",
            wrong.len(),
            wrong.iter().take(6).cloned().collect::<Vec<_>>().join("; ")
        )
        .into());
    }
    Ok(if k.units == 1 {
        "most holders 1 on every object used".to_string()
    } else {
        format!(
            "most holders at most {} (highest seen {most_seen})",
            k.units
        )
    })
}

/// The seven shapes on 32 objects in global memory.
fn global(ctx: &Ctx, k: &Kind) -> Result<String> {
    check_sizes(ctx)?;
    let (blocks, iters) = (ctx.gpu.sm_count(), 4u32);
    let kernel = ctx.kernel(&format!("pattern_{}_global", k.kernel))?;
    let start = Instant::now();
    let (mut parts, mut wrong, mut most_seen, mut total) = (vec![], vec![], 0, 0u64);
    for (shape, name) in SHAPES {
        let locks = ctx.gpu.zeros::<u32>(NOBJ * k.size_gpu / 4)?;
        let stats = ctx.gpu.zeros::<u32>(5 * NOBJ)?;
        let launch = |shape: u32, cfg: LaunchConfig| -> Result<()> {
            let mut b = ctx.gpu.stream().launch_builder(kernel.function());
            b.arg(&locks).arg(&stats).arg(&shape).arg(&iters);
            unsafe { b.launch(cfg) }
                .map(drop)
                .map_err(|e| format!("{name}: launch: {e}").into())
        };
        launch(INIT, launch_config(1, NOBJ as u32, 0))?;
        launch(shape, launch_config(blocks, THREADS, 0))?;
        launch(PROBE, launch_config(1, NOBJ as u32, 0))?;
        ctx.gpu.wait(TIMEOUT).map_err(|e| format!("{name}: {e}"))?;
        let s = ctx.gpu.download(&stats)?;
        let mut want = [0u32; NOBJ];
        for block in 0..blocks {
            expect_block(&mut want, shape, block, iters);
        }
        for o in 0..NOBJ {
            check_object(
                k,
                &mut wrong,
                &format!("{name} object {o}"),
                want[o],
                s[o],
                s[NOBJ + o],
                s[2 * NOBJ + o],
                s[3 * NOBJ + o],
                s[4 * NOBJ + o],
            );
            most_seen = most_seen.max(s[2 * NOBJ + o]);
        }
        let sections: u32 = want.iter().sum();
        total += sections as u64;
        let used = want.iter().filter(|&&w| w > 0).count();
        parts.push(format!("{name} {} on {used}", n(sections)));
    }
    let probe = verdict(k, &wrong, most_seen)?;
    Ok(format!(
        "{blocks}x{THREADS} threads x {iters} iters, global memory: {} sections ({}), counts exact, {probe}, all free after; {:.0} ms",
        n(total),
        parts.join(", "),
        start.elapsed().as_secs_f64() * 1e3
    ))
}

/// The seven shapes on 32 objects per block in shared memory (Cta scope).
fn shared(ctx: &Ctx, k: &Kind) -> Result<String> {
    check_sizes(ctx)?;
    let (blocks, iters) = (ctx.gpu.sm_count(), 8u32);
    let kernel = ctx.kernel(&format!("pattern_{}_shared", k.kernel))?;
    let smem = (NOBJ * k.size_cta + 12 * NOBJ) as u32;
    let start = Instant::now();
    let (mut parts, mut wrong, mut most_seen, mut total) = (vec![], vec![], 0, 0u64);
    for (shape, name) in SHAPES {
        let out = ctx.gpu.zeros::<u32>(blocks as usize * NOBJ * 5)?;
        let mut b = ctx.gpu.stream().launch_builder(kernel.function());
        b.arg(&out).arg(&shape).arg(&iters);
        unsafe { b.launch(launch_config(blocks, THREADS, smem)) }
            .map_err(|e| format!("{name}: launch: {e}"))?;
        ctx.gpu.wait(TIMEOUT).map_err(|e| format!("{name}: {e}"))?;
        let s = ctx.gpu.download(&out)?;
        let mut sections = 0u64;
        for block in 0..blocks {
            let mut want = [0u32; NOBJ];
            expect_block(&mut want, shape, block, iters);
            for o in 0..NOBJ {
                let r = &s[(block as usize * NOBJ + o) * 5..][..5];
                check_object(
                    k,
                    &mut wrong,
                    &format!("{name} block {block} object {o}"),
                    want[o],
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    r[4],
                );
                most_seen = most_seen.max(r[2]);
                sections += want[o] as u64;
            }
        }
        total += sections;
        parts.push(format!("{name} {}", n(sections)));
    }
    let probe = verdict(k, &wrong, most_seen)?;
    Ok(format!(
        "{blocks} blocks x {THREADS} threads x {iters} iters, 32 objects per block in shared memory: {} sections ({}), counts exact per block and object, {probe}, all free after; {:.0} ms",
        n(total),
        parts.join(", "),
        start.elapsed().as_secs_f64() * 1e3
    ))
}

/// 65,536 per-bucket locks in global memory, 4 inserts per thread.
fn table(ctx: &Ctx, k: &Kind) -> Result<String> {
    check_sizes(ctx)?;
    let blocks = ctx.gpu.sm_count();
    let inserts = blocks * THREADS * 4;
    // What the table must hold: per bucket, each key with its number of inserts.
    let mut want: Vec<BTreeMap<u32, u32>> = vec![BTreeMap::new(); BUCKETS];
    let mut per_key: BTreeMap<u32, u32> = BTreeMap::new();
    for i in 0..inserts {
        let key = key_of(i);
        *want[bucket_of(key)].entry(key).or_default() += 1;
        *per_key.entry(key).or_default() += 1;
    }
    let fullest = want.iter().map(|m| m.len()).max().unwrap_or(0);
    if fullest > SLOTS {
        return Err(format!(
            "test setup: a bucket receives {fullest} distinct keys, more than its {SLOTS} slots"
        )
        .into());
    }
    let kernel = ctx.kernel(&format!("pattern_{}_table", k.kernel))?;
    let locks = ctx.gpu.zeros::<u32>(BUCKETS * k.size_gpu / 4)?;
    let slots = ctx.gpu.zeros::<u32>(BUCKETS * SLOTS * 2)?;
    let out: CudaSlice<u32> = ctx.gpu.zeros::<u32>(1 + 2 * BUCKETS)?;
    let launch = |mode: u32, n: u32| -> Result<()> {
        let mut b = ctx.gpu.stream().launch_builder(kernel.function());
        b.arg(&locks).arg(&slots).arg(&out).arg(&mode).arg(&n);
        unsafe { b.launch(launch_config(blocks, THREADS, 0)) }
            .map(drop)
            .map_err(|e| format!("launch: {e}").into())
    };
    launch(0, 0)?;
    ctx.gpu.wait(TIMEOUT)?;
    let start = Instant::now();
    launch(1, inserts)?;
    ctx.gpu.wait(TIMEOUT)?;
    let took = start.elapsed();
    launch(2, 0)?;
    ctx.gpu.wait(TIMEOUT)?;
    let got = ctx.gpu.download(&slots)?;
    let o = ctx.gpu.download(&out)?;
    let mut wrong = vec![];
    let mut stored = 0u64;
    for (b, want_b) in want.iter().enumerate() {
        let mut have: Vec<(u32, u32)> = got[b * SLOTS * 2..][..SLOTS * 2]
            .chunks(2)
            .filter(|p| p[0] != 0)
            .map(|p| (p[0] - 1, p[1]))
            .collect();
        stored += have.iter().map(|p| p.1 as u64).sum::<u64>();
        have.sort_unstable();
        let expect: Vec<(u32, u32)> = want_b.iter().map(|(&k, &c)| (k, c)).collect();
        let inserts_b: u32 = want_b.values().sum();
        let data_want = if k.has_data { inserts_b } else { 0 };
        let (data, free) = (o[1 + b], o[1 + BUCKETS + b]);
        if have != expect || data != data_want || free != k.units {
            wrong.push(format!(
                "bucket {b}: (key, count) {have:?}, expected {expect:?}; lock data {data} (expected {data_want}), free {free} (expected {})",
                k.units
            ));
        }
    }
    if !wrong.is_empty() || o[0] != 0 || stored != inserts as u64 {
        return Err(format!(
            "{} of {} inserts stored, {} found their bucket full; {} buckets wrong: {}",
            n(stored),
            n(inserts),
            n(o[0]),
            n(wrong.len() as u64),
            wrong.iter().take(4).cloned().collect::<Vec<_>>().join("; ")
        )
        .into());
    }
    let used = want.iter().filter(|m| !m.is_empty()).count();
    let hottest = per_key.values().max().copied().unwrap_or(0);
    let busiest = want
        .iter()
        .map(|m| m.values().sum::<u32>())
        .max()
        .unwrap_or(0);
    Ok(format!(
        "{} inserts by {blocks}x{THREADS} threads of {} distinct keys (16 hot, hottest {} times) into {} per-bucket locks: every key stored exactly once with its exact count in its bucket ({} buckets used, up to {fullest} keys and {} inserts per bucket){}, all locks free after; {:.1} ms",
        n(inserts),
        n(per_key.len() as u64),
        n(hottest),
        n(BUCKETS as u64),
        n(used as u64),
        n(busiest),
        if k.has_data { ", each Mutex's data = its bucket's inserts" } else { "" },
        took.as_secs_f64() * 1e3
    ))
}

macro_rules! kind_tests {
    ($kind:ident, $global:ident, $shared:ident $(, $table:ident)?) => {
        fn $global(ctx: &Ctx) -> Result<String> {
            global(ctx, &$kind)
        }
        fn $shared(ctx: &Ctx) -> Result<String> {
            shared(ctx, &$kind)
        }
        $(
        fn $table(ctx: &Ctx) -> Result<String> {
            table(ctx, &$kind)
        }
        )?
    };
}

kind_tests!(MUTEX, mutex_global, mutex_shared, mutex_table);
kind_tests!(SPINLOCK, spinlock_global, spinlock_shared, spinlock_table);
kind_tests!(
    TICKETLOCK,
    ticketlock_global,
    ticketlock_shared,
    ticketlock_table
);
kind_tests!(
    BINARY_SEMAPHORE,
    binary_semaphore_global,
    binary_semaphore_shared,
    binary_semaphore_table
);
kind_tests!(
    SEMAPHORE_AS_LOCK,
    semaphore_as_lock_global,
    semaphore_as_lock_shared,
    semaphore_as_lock_table
);
kind_tests!(
    SEMAPHORE_COUNTING,
    semaphore_counting_global,
    semaphore_counting_shared
);

pub fn tests() -> Vec<GpuTest> {
    let t = |name: &'static str, run: fn(&Ctx) -> Result<String>| GpuTest {
        name,
        timeout: TIMEOUT,
        run,
    };
    vec![
        t("pattern_mutex_warp_shapes_global", mutex_global),
        t("pattern_mutex_warp_shapes_shared", mutex_shared),
        t("pattern_mutex_bucket_table", mutex_table),
        t("pattern_spinlock_warp_shapes_global", spinlock_global),
        t("pattern_spinlock_warp_shapes_shared", spinlock_shared),
        t("pattern_spinlock_bucket_table", spinlock_table),
        t("pattern_ticketlock_warp_shapes_global", ticketlock_global),
        t("pattern_ticketlock_warp_shapes_shared", ticketlock_shared),
        t("pattern_ticketlock_bucket_table", ticketlock_table),
        t(
            "pattern_binary_semaphore_warp_shapes_global",
            binary_semaphore_global,
        ),
        t(
            "pattern_binary_semaphore_warp_shapes_shared",
            binary_semaphore_shared,
        ),
        t(
            "pattern_binary_semaphore_bucket_table",
            binary_semaphore_table,
        ),
        t(
            "pattern_semaphore_as_lock_warp_shapes_global",
            semaphore_as_lock_global,
        ),
        t(
            "pattern_semaphore_as_lock_warp_shapes_shared",
            semaphore_as_lock_shared,
        ),
        t(
            "pattern_semaphore_as_lock_bucket_table",
            semaphore_as_lock_table,
        ),
        t(
            "pattern_semaphore_counting_warp_shapes_global",
            semaphore_counting_global,
        ),
        t(
            "pattern_semaphore_counting_warp_shapes_shared",
            semaphore_counting_shared,
        ),
    ]
}

#[cfg(test)]
mod host_checks {
    use super::*;

    #[test]
    fn thousands() {
        assert_eq!(n(0u32), "0");
        assert_eq!(n(999u32), "999");
        assert_eq!(n(1000u32), "1,000");
        assert_eq!(n(270_336u32), "270,336");
    }

    /// Every key fits its bucket (whatever the grid), and the H100's 132 x 256 x 4 inserts
    /// repeat keys (hot ones often).
    #[test]
    fn table_keys_fit_and_repeat() {
        let mut per_bucket = vec![0usize; BUCKETS];
        for key in 0..KEYS {
            per_bucket[bucket_of(key)] += 1;
        }
        assert!(per_bucket.iter().all(|&c| c <= SLOTS));
        let mut per_key = BTreeMap::new();
        for i in 0..132 * THREADS * 4 {
            *per_key.entry(key_of(i)).or_insert(0u32) += 1;
        }
        assert!(per_key.len() < 132 * THREADS as usize);
        assert!((0..HOT).all(|k| per_key[&k] > 500));
    }

    /// The shapes name the objects the matrix says (a few spot checks).
    #[test]
    fn shapes() {
        let mut c = [0u32; NOBJ];
        expect_block(&mut c, 0, 0, 1);
        assert_eq!(&c[..3], &[128, 128, 0]);
        let mut c = [0u32; NOBJ];
        expect_block(&mut c, 1, 0, 1);
        assert!(c.iter().all(|&x| x == 8));
        let mut c = [0u32; NOBJ];
        expect_block(&mut c, 3, 0, 1);
        assert_eq!(&c[..3], &[4, 4, 0]);
        let mut c = [0u32; NOBJ];
        expect_block(&mut c, 6, 0, 1);
        assert_eq!(&c[..6], &[128, 128, 88, 88, 80, 0]);
    }
}
