//! The Rust side of every case (bench/kernels): the same shapes, work and checks as the C++
//! references in bench/cpp/reference.cu.

use crate::reference::Sample;
use crate::table;
use ptx_sync::{CachePadded, Mutex};
use ptx_sync_host::cudarc::driver::sys::CUevent_flags;
use ptx_sync_host::cudarc::driver::{
    CudaSlice, DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg, ValidAsZeroBits,
};
use ptx_sync_host::{Device, ManagedBuffer, MappedBuffer, Module};
use ptx_sync_testkit::{launch_config, Result};
use std::mem::size_of;
use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::{Acquire, Release};
use std::time::Duration;

pub(crate) const LIMIT: Duration = Duration::from_secs(60);

/// The Rust case names (the C++ library has these and more).
pub fn names() -> Vec<String> {
    let mut v = Vec::new();
    for op in ["fetch_add", "cas_loop", "exchange"] {
        for pl in ["contended", "distinct"] {
            for sc in ["cta", "gpu"] {
                for o in ["relaxed", "acq_rel"] {
                    for t in ["u32", "u64"] {
                        v.push(format!("atomic/{op}/{pl}/{sc}/{o}/{t}"));
                    }
                }
            }
        }
    }
    v.push("atomic/float_add/contended/gpu/relaxed/f32".into());
    v.push("atomic/float_add/distinct/gpu/relaxed/f32".into());
    v.push("atomic/fetch_max/contended/gpu/relaxed/f32".into());
    v.push("atomic/fetch_max/contended/gpu/relaxed/f64".into());
    v.push("atomic/fetch_add/contended/gpu/relaxed/u8".into());
    v.push("atomic/fetch_add/contended/gpu/relaxed/u16".into());
    v.push("atomic/cas_loop/contended/gpu/relaxed/u128".into());
    // The u64 CAS-loop row's shape variants (bench/NOTES.md: where its miss comes from).
    v.push("atomic/cas_loop_global/contended/cta/relaxed/u64".into());
    v.push("atomic/cas_loop_not_unrolled/contended/cta/relaxed/u64".into());
    v.push("mp/pingpong/blocks".into());
    v.push("mp/pingpong/host".into());
    // The same ping-pong through managed memory (Rust only: the row next to it is the pinned
    // mapped memory's).
    v.push("mp/pingpong/host_managed".into());
    for f in ["sc", "acq_rel"] {
        for s in ["cta", "gpu", "sys"] {
            v.push(format!("fence/{f}/{s}"));
        }
    }
    for kind in ["mutex", "semaphore4", "semaphore32"] {
        for shape in ["1x32", "132x32", "132x256"] {
            v.push(format!("{kind}/{shape}"));
        }
    }
    for shape in ["132x32", "132x256"] {
        v.push(format!("hash_table/{shape}"));
    }
    // binary_semaphore/lock, semaphore/mpmc_queue, scan/decoupled_lookback, latch/per_tile.
    v.extend(crate::user_shapes::names());
    // space/*: generic against state-space atomics.
    v.extend(crate::space::names());
    // rwlock/*, queue/turn_ring/*: RwLock and Queue against the same algorithms in C++.
    v.extend(crate::rwlock_queue::names());
    v.push("latch/132x128".into());
    for b in [
        "syncthreads",
        "cuda_barrier",
        "split_arrive_wait",
        "generic",
    ] {
        v.push(format!("block_barrier/{b}"));
    }
    // grid_sync: GridBarrier; cuda_barrier: Barrier<Gpu>.
    for b in ["grid_sync", "cuda_barrier"] {
        for n in ["132", "264", "528", "1056"] {
            v.push(format!("grid_barrier/{b}/{n}"));
        }
    }
    v
}

/// The shapes of reference.cu's `shape()`: (blocks, threads, iterations per thread).
pub(crate) fn lock_shape(shape: &str) -> Result<(u32, u32, i32)> {
    Ok(match shape {
        "1x32" => (1, 32, 64),
        "132x32" => (132, 32, 16),
        "132x256" => (132, 256, 4),
        _ => return Err(format!("unknown shape {shape}").into()),
    })
}

/// `Semaphore<Gpu, MAX>`: holders count themselves in and out; never more than MAX.
fn semaphore(gpu: &Device, m: &Module, kind: &str, shape: &str) -> Sample {
    let (blocks, threads, iters) = lock_shape(shape)?;
    let max: u32 = if kind == "semaphore4" { 4 } else { 32 };
    let k = m.kernel(&format!("{kind}__holders"))?;
    let sem = gpu.upload(&[max])?;
    let stats: CudaSlice<u32> = gpu.zeros(96)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&sem).arg(&stats).arg(&iters);
    let ms = timed(gpu, b, launch_config(blocks, threads, 0))?;
    let h = gpu.download(&stats)?;
    let units = gpu.download(&sem)?[0];
    let total = blocks * threads * iters as u32;
    if h[64] != total || h[32] > max || h[0] != 0 || units != max {
        return Err(format!(
            "wrong result: passes {}/{total}, most holders {} (max {max}), left {}, units {units}",
            h[64], h[32], h[0]
        )
        .into());
    }
    Ok((ms, total as f64))
}

/// `Latch<Gpu>` fan-in: 500 rounds, a fresh latch of 132 per round, cooperative launch.
fn latch(gpu: &Device, m: &Module) -> Sample {
    let (blocks, threads, rounds) = (132u32, 128u32, 500i32);
    let k = m.kernel("latch__fan_in")?;
    let latches = gpu.upload(&vec![blocks; rounds as usize])?;
    let arrived: CudaSlice<u32> = gpu.zeros(1)?;
    let errors: CudaSlice<u32> = gpu.zeros(1)?;
    let cfg = gpu.cooperative_config(&k, blocks, threads, 0)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&latches).arg(&arrived).arg(&rounds).arg(&errors);
    let ms = timed_cooperative(gpu, b, cfg)?;
    no_errors(gpu, &errors, "early wake-ups")?;
    Ok((ms, rounds as f64))
}

/// Block barriers: 132 x 256 threads, 10000 phases, double-buffered neighbour exchange.
fn block_barrier(gpu: &Device, m: &Module, kname: &str) -> Sample {
    let (blocks, threads, iters) = (132u32, 256u32, 10_000i32);
    let k = m.kernel(kname)?;
    let errors: CudaSlice<u32> = gpu.zeros(1)?;
    let sink: CudaSlice<f32> = gpu.zeros(1)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&iters).arg(&errors);
    if kname.ends_with("split_arrive_wait") {
        b.arg(&sink);
    }
    let mut c = launch_config(blocks, threads, 0);
    c.shared_mem_bytes = 16 + 2 * threads * 4;
    let ms = timed(gpu, b, c)?;
    no_errors(gpu, &errors, "stale neighbour reads")?;
    Ok((ms, iters as f64))
}

/// Grid barriers: 2000 rounds, 128 threads a block, cooperative launch.
fn grid_barrier(gpu: &Device, m: &Module, kname: &str, blocks: u32) -> Sample {
    let rounds = 2000i32;
    let k = m.kernel(kname)?;
    // GridBarrier: a zeroed u32 (the first half of this zeroed u64). Barrier<Gpu>: one u64,
    // a fresh barrier of `blocks`.
    let bar = if kname.contains("grid_sync") {
        gpu.upload(&[0u64])
    } else {
        gpu.upload(&[ptx_sync::barrier::init_word(blocks)])
    }?;
    let slots = gpu.upload(&vec![-1i32; 2 * blocks as usize])?;
    let errors: CudaSlice<u32> = gpu.zeros(1)?;
    let cfg = gpu.cooperative_config(&k, blocks, 128, 0)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&bar).arg(&slots).arg(&rounds).arg(&errors);
    let ms = timed_cooperative(gpu, b, cfg)?;
    no_errors(gpu, &errors, "stale neighbour reads")?;
    Ok((ms, rounds as f64))
}

/// The bench's mutex (bench/kernels `mutex__counter`), laid out as on the GPU: the counter on
/// the line after the lock word's, as the C++ keeps its counter apart from its semaphore.
type CounterMutex = Lock<CachePadded<u32>>;

/// ptx-sync's `Mutex<T, Gpu>` as the host build lays it out: the GPU's layout (`repr(C)`).
type Lock<T> = Mutex<T, ptx_sync::Gpu>;

/// u32 words that hold a `M`.
fn words_of<M>() -> usize {
    size_of::<M>().div_ceil(4)
}

/// Mutex `i` of an array of `Mutex<T, Gpu>` downloaded as u32 words: its data, and whether
/// every other byte of it (the lock word, padding) is zero, that is, unlocked. Where the data
/// sits comes from the crate's own layout (`size_of`, `Mutex::DATA_OFFSET`), never a constant.
///
/// # Safety
/// `T` must be plain data that every bit pattern is a valid value of (u32 fields and padding).
unsafe fn mutex_at<T: Copy>(words: &[u32], i: usize) -> (T, bool) {
    const { assert!(size_of::<Lock<T>>().is_multiple_of(4)) };
    const { assert!(Lock::<T>::DATA_OFFSET.is_multiple_of(4)) };
    let stride = size_of::<Lock<T>>() / 4;
    let m = &words[i * stride..(i + 1) * stride];
    let start = Lock::<T>::DATA_OFFSET / 4;
    let data = start..start + size_of::<T>().div_ceil(4);
    // SAFETY: `m[data]` holds `size_of::<T>()` bytes; the caller's contract on `T`.
    let value = unsafe { m[data.clone()].as_ptr().cast::<T>().read_unaligned() };
    let unlocked = m
        .iter()
        .enumerate()
        .all(|(w, &v)| data.contains(&w) || v == 0);
    (value, unlocked)
}

/// `Mutex<CachePadded<u32>, Gpu>` around `counter += 1`; the shapes of reference.cu's `shape()`.
fn mutex(gpu: &Device, m: &Module, shape: &str) -> Sample {
    let (blocks, threads, iters) = lock_shape(shape)?;
    let k = m.kernel("mutex__counter")?;
    // All zeros: unlocked, counter 0.
    let lock: CudaSlice<u32> = gpu.zeros(words_of::<CounterMutex>())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&lock).arg(&iters);
    let ms = timed(gpu, b, launch_config(blocks, threads, 0))?;
    let h = gpu.download(&lock)?;
    // SAFETY: CachePadded<u32> is a u32 and padding.
    let (counter, unlocked) = unsafe { mutex_at::<CachePadded<u32>>(&h, 0) };
    let (counter, total) = (counter.into_inner(), blocks * threads * iters as u32);
    if counter != total || !unlocked {
        return Err(format!(
            "wrong result: counter {counter} (expected {total}), unlocked after the launch: {unlocked}"
        ).into());
    }
    Ok((ms, total as f64))
}

/// The shapes of the `hash_table/*` rows: blocks x threads from `lock_shape`, more inserts
/// per thread (a bucket is rarely contended, so a thread's inserts are short).
fn table_shape(shape: &str) -> Result<(u32, u32, i32)> {
    Ok(match shape {
        "132x32" => (132, 32, 128),
        "132x256" => (132, 256, 32),
        _ => return Err(format!("unknown shape {shape}").into()),
    })
}

/// `hash_table/*`: 65,536 buckets, a `Mutex<Bucket, Gpu>` each (compact: 64 bytes), every
/// thread inserts `iters` keys (bench/src/table.rs). Checked: every bucket holds exactly the
/// keys and counts of the same inserts done one at a time on the host (each insert counted
/// once, no key appended twice), and every lock is free again.
fn hash_table(gpu: &Device, m: &Module, shape: &str) -> Sample {
    let (blocks, threads, iters) = table_shape(shape)?;
    let k = m.kernel("hash_table__insert")?;
    let t: CudaSlice<u32> = gpu.zeros(table::BUCKETS * words_of::<Lock<table::Bucket>>())?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&t).arg(&iters);
    let ms = timed(gpu, b, launch_config(blocks, threads, 0))?;
    let h = gpu.download(&t)?;
    let total = blocks * threads * iters as u32;
    let expected = table::expected(total);
    for (i, want) in expected.iter().enumerate() {
        // SAFETY: a Bucket is u32s.
        let (got, unlocked) = unsafe { mutex_at::<table::Bucket>(&h, i) };
        if !want.same_contents(&got) || !unlocked {
            return Err(format!(
                "wrong result: bucket {i} holds {got:?}, expected the keys and counts of {want:?}; unlocked: {unlocked}"
            ).into());
        }
    }
    Ok((ms, total as f64))
}

/// The kernel's error count (`errors[0]`), which must be 0: else `wrong result: N {what}`.
fn no_errors(gpu: &Device, errors: &CudaSlice<u32>, what: &str) -> Result<()> {
    let e = gpu.download(errors)?[0];
    if e != 0 {
        return Err(format!("wrong result: {e} {what}").into());
    }
    Ok(())
}

/// Launches with events recorded around the kernel; returns milliseconds.
pub(crate) fn timed(gpu: &Device, launch: LaunchArgs, cfg: LaunchConfig) -> Result<f64> {
    timed_as(gpu, launch, cfg, false)
}

/// [`timed`] for a cooperative launch.
pub(crate) fn timed_cooperative(
    gpu: &Device,
    launch: LaunchArgs,
    cfg: LaunchConfig,
) -> Result<f64> {
    timed_as(gpu, launch, cfg, true)
}

fn timed_as(
    gpu: &Device,
    mut launch: LaunchArgs,
    cfg: LaunchConfig,
    cooperative: bool,
) -> Result<f64> {
    launch.record_kernel_launch(CUevent_flags::CU_EVENT_DEFAULT);
    let events = if cooperative {
        unsafe { launch.launch_cooperative(cfg) }
    } else {
        unsafe { launch.launch(cfg) }
    }
    .map_err(|e| format!("launch: {e}"))?;
    gpu.wait(LIMIT)?;
    let (start, end) = events.ok_or("no events recorded")?;
    start
        .elapsed_ms(&end)
        .map(|ms| ms as f64)
        .map_err(Into::into)
}

trait Word: DeviceRepr + ValidAsZeroBits + Copy + PartialEq + std::fmt::Debug + Unpin {
    fn from_f64(x: f64) -> Self;
    /// The value as a u64 (integers only; the checks of returned values skip floats).
    fn to_u64(self) -> u64;
    /// Bits of the type: wrapping sums are compared modulo 2^BITS.
    const BITS: u32;
}
macro_rules! narrow_word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            fn from_f64(x: f64) -> Self {
                (x as u64) as $t
            }
            fn to_u64(self) -> u64 {
                self as u64
            }
            const BITS: u32 = <$t>::BITS;
        }
    )*};
}
narrow_word!(u8, u16);

/// A 128-bit word as the kernels see it (cudarc has no `DeviceRepr` for `u128`).
#[derive(Clone, Copy, PartialEq, Debug, Default)]
#[repr(C, align(16))]
struct U128(u128);
// SAFETY: a plain 16-byte integer, passed and copied by value.
unsafe impl DeviceRepr for U128 {}
// SAFETY: all-zero bits are the integer 0.
unsafe impl ValidAsZeroBits for U128 {}
impl Word for U128 {
    fn from_f64(x: f64) -> Self {
        U128(x as u128)
    }
    /// The low 64 bits: the returned-values check runs modulo 2^64 (the word itself is
    /// compared whole).
    fn to_u64(self) -> u64 {
        self.0 as u64
    }
    const BITS: u32 = 64;
}

impl Word for u32 {
    fn from_f64(x: f64) -> Self {
        x as u32
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
    const BITS: u32 = 32;
}
impl Word for u64 {
    fn from_f64(x: f64) -> Self {
        x as u64
    }
    fn to_u64(self) -> u64 {
        self
    }
    const BITS: u32 = 64;
}
impl Word for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
    const BITS: u32 = 32;
}
impl Word for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_u64(self) -> u64 {
        self as u64
    }
    const BITS: u32 = 64;
}

/// 0 + 1 + ... + (n - 1), modulo 2^64.
fn triangle(n: u64) -> u64 {
    if n.is_multiple_of(2) {
        (n / 2).wrapping_mul(n.wrapping_sub(1))
    } else {
        n.wrapping_mul((n - 1) / 2)
    }
}

/// The atomics cases' check, the same as reference.cu's `check_atomic`. Threads share a word
/// in groups: a block's (contended, cta), the grid's (contended, gpu), or a thread has its own
/// (distinct). Each thread's `out` is the wrapping sum of the values its RMWs returned.
/// - fetch_add, CAS loop: the word ends at the group's op count `N`, and the group's returned
///   values are 0, 1, ..., N - 1 once each, so their sum is N(N-1)/2 (a lost, repeated or
///   torn increment breaks one or the other).
/// - float add: the word ends at N (its returned values are not summed: rounding).
/// - exchange: every value swapped in (thread t's i-th is t + i) is either returned by a later
///   swap or is the final word, and the initial 0 is returned once: the group's returned
///   values plus its final word sum to the sum of its stored values. With a word of its own a
///   thread also must leave its last value (t + iters - 1) there.
///
/// Sums are modulo 2^BITS, as the kernels add.
fn check_atomic<T: Word>(
    op: &str,
    (contended, cta): (bool, bool),
    (blocks, threads, iters): (u32, u32, i32),
    words: &[T],
    out: &[T],
) -> Result<()> {
    let n = (blocks * threads) as usize;
    let groups: Vec<(usize, std::ops::Range<usize>)> = match (contended, cta) {
        (true, true) => (0..blocks as usize)
            .map(|b| (b * 32, b * threads as usize..(b + 1) * threads as usize))
            .collect(),
        (true, false) => vec![(0, 0..n)],
        (false, _) => (0..n).map(|t| (t, t..t + 1)).collect(),
    };
    let mask = if T::BITS == 64 {
        u64::MAX
    } else {
        (1u64 << T::BITS) - 1
    };
    let iters = iters as u64;
    for (w, threads) in groups {
        let ops = threads.len() as u64 * iters;
        let word = words[w];
        let returned = threads
            .clone()
            .fold(0u64, |a, t| a.wrapping_add(out[t].to_u64()));
        let bad = match op {
            "float_add" => word != T::from_f64(ops as f64),
            // The largest offer, `iters * n - 1` (n threads in the grid).
            "fetch_max" => word != T::from_f64((iters * n as u64 - 1) as f64),
            "exchange" => {
                let stored = threads.clone().fold(0u64, |a, t| {
                    a.wrapping_add((t as u64).wrapping_mul(iters))
                        .wrapping_add(triangle(iters))
                });
                let last = threads.start as u64 + iters - 1;
                returned.wrapping_add(word.to_u64()) & mask != stored & mask
                    || (!contended && word.to_u64() != last & mask)
            }
            _ => word != T::from_f64(ops as f64) || returned & mask != triangle(ops) & mask,
        };
        if bad {
            return Err(format!(
                "wrong result: word {w} = {word:?}, returned values of threads {threads:?} sum to {returned} (mod 2^{})",
                T::BITS
            ).into());
        }
    }
    Ok(())
}

fn atomic<T: Word>(
    gpu: &Device,
    m: &Module,
    kname: &str,
    op: &str,
    contended: bool,
    cta: bool,
) -> Sample {
    // CAS loops (and the 8/16-bit fetch_add, a CAS loop inside) on one contended word: small.
    let narrow = T::BITS < 32;
    let small = (op.starts_with("cas_loop") || narrow) && contended;
    // f32 counts exactly only to 2^24: the contended float sum keeps 264 x 256 x 32 below it.
    let float_contended = (op == "float_add" || op == "fetch_max") && contended;
    let (blocks, threads, iters): (u32, u32, i32) = match (small, float_contended) {
        (true, _) => (132, 64, 4),
        (_, true) => (264, 256, 32),
        _ => (264, 256, 256),
    };
    let n = (blocks * threads) as usize;
    let words_len = if contended { blocks as usize * 32 } else { n };
    let k = m.kernel(kname)?;
    let w: CudaSlice<T> = gpu.zeros(words_len)?;
    let out: CudaSlice<T> = gpu.zeros(n)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&w).arg(&out).arg(&iters);
    let ms = timed(gpu, b, launch_config(blocks, threads, 0))?;
    let h = gpu.download(&w)?;
    let o = gpu.download(&out)?;
    check_atomic(op, (contended, cta), (blocks, threads, iters), &h, &o)?;
    Ok((ms, n as f64 * iters as f64))
}

fn pingpong_blocks(gpu: &Device, m: &Module) -> Sample {
    let rounds = 20_000i32;
    let k = m.kernel("mp__pingpong__blocks")?;
    let f: CudaSlice<u32> = gpu.zeros(64)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&f).arg(&rounds);
    let ms = timed(gpu, b, launch_config(2, 1, 0))?;
    let h = gpu.download(&f)?;
    if h[0] != rounds as u32 || h[32] != rounds as u32 {
        return Err(format!("wrong result: flags {} {}", h[0], h[32]).into());
    }
    Ok((ms, rounds as f64))
}

/// `mp/pingpong/host`: the host <-> GPU ping-pong through pinned mapped host memory.
fn pingpong_host(gpu: &Device, m: &Module) -> Sample {
    let buf = MappedBuffer::<u32>::new(gpu, 64)?;
    pingpong_host_on(gpu, m, buf.device_ptr(), buf.atomics_u32())
}

/// `mp/pingpong/host_managed`: the same through managed memory (`ManagedBuffer`), where each
/// handoff may migrate the flags' page between host and GPU memory. Fails (saying why) on a
/// GPU without concurrent managed access.
fn pingpong_host_managed(gpu: &Device, m: &Module) -> Sample {
    let buf = ManagedBuffer::<u32>::new(gpu, 64)?;
    pingpong_host_on(gpu, m, buf.device_ptr(), buf.atomics_u32())
}

/// One GPU thread stores round r to word 0 and waits for the host's r in word 32; a host
/// thread answers each round. `words` are the host's view of the 64 words at `ptr`.
fn pingpong_host_on(gpu: &Device, m: &Module, ptr: u64, words: &[AtomicU32]) -> Sample {
    let rounds = 2_000i32;
    let k = m.kernel("mp__pingpong__host")?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&ptr).arg(&rounds);
    b.record_kernel_launch(CUevent_flags::CU_EVENT_DEFAULT);
    let events = unsafe { b.launch(launch_config(1, 1, 0)) }.map_err(|e| format!("launch: {e}"))?;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    for r in 1..=rounds as u32 {
        // The deadline is read only every 4096 polls: a clock read per poll would lengthen
        // the round trip being measured.
        let mut polls = 0u32;
        while words[0].load(Acquire) != r {
            polls = polls.wrapping_add(1);
            if polls.is_multiple_of(4096) && std::time::Instant::now() > deadline {
                return Err(format!("host: round {r} never arrived").into());
            }
        }
        words[32].store(r, Release);
    }
    gpu.wait(LIMIT)?;
    let (start, end) = events.ok_or("no events recorded")?;
    let ms = start.elapsed_ms(&end)? as f64;
    Ok((ms, rounds as f64))
}

/// `fence/*`: every thread stores 0, 1, ..., iters - 1 to its own word, each store followed by
/// the fence. Checked: every thread's last store landed in its word (fresh zeroed memory, so a
/// thread that did not run, stopped early or wrote elsewhere shows). What it does not prove:
/// that the fence orders anything. A missing or too weak fence (acq_rel for sc, cta for gpu)
/// leaves the same words; no store-then-load or message-passing outcome is observed here, and
/// the forbidden outcomes the fences exist for are rare even without them (LITMUS.md). Ordering
/// is tested by the litmus suite (`cargo xtask litmus`) and the fence instructions by the
/// golden PTX tests; BENCHMARKS.md's SASS table shows both sides emit the same fence.
fn fence(gpu: &Device, m: &Module, kname: &str) -> Sample {
    let (blocks, threads, iters) = (132u32, 128u32, 1024i32);
    let k = m.kernel(kname)?;
    let x: CudaSlice<i32> = gpu.zeros((blocks * threads) as usize)?;
    let mut b = gpu.stream().launch_builder(k.function());
    b.arg(&x).arg(&iters);
    let ms = timed(gpu, b, launch_config(blocks, threads, 0))?;
    let h = gpu.download(&x)?;
    if let Some(i) = h.iter().position(|&v| v != iters - 1) {
        return Err(format!("wrong result: x[{i}] = {} (expected {})", h[i], iters - 1).into());
    }
    Ok((ms, (blocks * threads) as f64 * iters as f64))
}

/// One timed, checked launch of the Rust side of `case`.
pub fn run(gpu: &Device, m: &Module, case: &str) -> Sample {
    if let Some(sample) = crate::user_shapes::run(gpu, m, case) {
        return sample;
    }
    if let Some(sample) = crate::space::run(gpu, m, case) {
        return sample;
    }
    if let Some(sample) = crate::rwlock_queue::run(gpu, m, case) {
        return sample;
    }
    let parts: Vec<&str> = case.split('/').collect();
    let kname = parts.join("__");
    match parts.as_slice() {
        ["atomic", op, pl, sc, _, ty] => {
            let (contended, cta) = (*pl == "contended", *sc == "cta");
            match *ty {
                "u32" => atomic::<u32>(gpu, m, &kname, op, contended, cta),
                "u64" => atomic::<u64>(gpu, m, &kname, op, contended, cta),
                "f64" => atomic::<f64>(gpu, m, &kname, op, contended, cta),
                "u8" => atomic::<u8>(gpu, m, &kname, op, contended, cta),
                "u16" => atomic::<u16>(gpu, m, &kname, op, contended, cta),
                "u128" => atomic::<U128>(gpu, m, &kname, op, contended, cta),
                _ => atomic::<f32>(gpu, m, &kname, op, contended, cta),
            }
        }
        ["mp", "pingpong", "blocks"] => pingpong_blocks(gpu, m),
        ["mp", "pingpong", "host"] => pingpong_host(gpu, m),
        ["mp", "pingpong", "host_managed"] => pingpong_host_managed(gpu, m),
        ["fence", ..] => fence(gpu, m, &kname),
        ["mutex", shape] => mutex(gpu, m, shape),
        ["hash_table", shape] => hash_table(gpu, m, shape),
        [kind @ ("semaphore4" | "semaphore32"), shape] => semaphore(gpu, m, kind, shape),
        ["latch", "132x128"] => latch(gpu, m),
        ["block_barrier", _] => block_barrier(gpu, m, &kname),
        ["grid_barrier", _, n] => {
            let blocks = n
                .parse()
                .map_err(|_| format!("bad block count in {case}"))?;
            let kname = kname.rsplit_once("__").map(|(k, _)| k).unwrap_or(&kname);
            grid_barrier(gpu, m, kname, blocks)
        }
        _ => Err(format!("no Rust side for {case}").into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a case's threads one after another on the host, as the kernels would (each
    /// thread's `iters` RMWs on its group's word, `out` the wrapping sum of what they returned).
    fn simulate<T: Word>(
        (contended, cta): (bool, bool),
        (blocks, threads, iters): (u32, u32, i32),
        rmw: impl Fn(&mut T, usize, i32) -> T,
        add: impl Fn(T, T) -> T,
        zero: T,
    ) -> (Vec<T>, Vec<T>) {
        let n = (blocks * threads) as usize;
        let mut words = vec![zero; if contended { blocks as usize * 32 } else { n }];
        let mut out = vec![zero; n];
        for (t, sum) in out.iter_mut().enumerate() {
            let w = match (contended, cta) {
                (true, true) => t / threads as usize * 32,
                (true, false) => 0,
                _ => t,
            };
            for i in 0..iters {
                *sum = add(*sum, rmw(&mut words[w], t, i));
            }
        }
        (words, out)
    }

    /// [`simulate`] on u32 words.
    fn simulate_u32(
        placement: (bool, bool),
        shape: (u32, u32, i32),
        rmw: impl Fn(&mut u32, usize, i32) -> u32,
    ) -> (Vec<u32>, Vec<u32>) {
        simulate(placement, shape, rmw, u32::wrapping_add, 0)
    }

    #[test]
    fn atomic_checks_pass_a_correct_run_and_fail_a_broken_one() {
        let shape = (3, 4, 5);
        for placement in [(true, true), (true, false), (false, false)] {
            // exchange, u32 and u64
            let (w, o) = simulate_u32(placement, shape, |x, t, i| {
                std::mem::replace(x, (t as u32).wrapping_add(i as u32))
            });
            check_atomic("exchange", placement, shape, &w, &o).unwrap();
            let mut bad = o.clone();
            bad[1] = bad[1].wrapping_add(1);
            assert!(check_atomic("exchange", placement, shape, &w, &bad).is_err());
            let (w64, o64) = simulate::<u64>(
                placement,
                shape,
                |x, t, i| std::mem::replace(x, t as u64 + i as u64),
                u64::wrapping_add,
                0,
            );
            check_atomic("exchange", placement, shape, &w64, &o64).unwrap();
            // A swap that returned the value it stored instead of the old one.
            let (w, o) = simulate_u32(placement, shape, |x, t, i| {
                *x = t as u32 + i as u32;
                *x
            });
            assert!(check_atomic("exchange", placement, shape, &w, &o).is_err());
            // fetch_add: right, and with every returned value off by one.
            let (w, o) = simulate_u32(placement, shape, |x, _, _| std::mem::replace(x, *x + 1));
            check_atomic("fetch_add", placement, shape, &w, &o).unwrap();
            let (w, o) = simulate_u32(placement, shape, |x, _, _| {
                *x += 1;
                *x
            });
            assert!(check_atomic("fetch_add", placement, shape, &w, &o).is_err());
        }
        // The wrapping case: the full-size contended fetch_add sums past 2^32.
        let big = (264, 256, 256);
        let (w, o) = simulate_u32((true, false), big, |x, _, _| std::mem::replace(x, *x + 1));
        check_atomic("fetch_add", (true, false), big, &w, &o).unwrap();
        // The narrow and wide rows' shape: 132 x 64 x 4 on the grid's one word. u8 and u16 wrap
        // many times over; a lost increment shows modulo their width too.
        let small = (132, 64, 4);
        let (w, o) = simulate::<u8>(
            (true, false),
            small,
            |x, _, _| std::mem::replace(x, x.wrapping_add(1)),
            u8::wrapping_add,
            0,
        );
        check_atomic("fetch_add", (true, false), small, &w, &o).unwrap();
        let mut lost = w.clone();
        lost[0] = lost[0].wrapping_sub(1);
        assert!(check_atomic("fetch_add", (true, false), small, &lost, &o).is_err());
        let (w, o) = simulate::<u16>(
            (true, false),
            small,
            |x, _, _| std::mem::replace(x, x.wrapping_add(1)),
            u16::wrapping_add,
            0,
        );
        check_atomic("fetch_add", (true, false), small, &w, &o).unwrap();
        let (w, o) = simulate::<U128>(
            (true, false),
            small,
            |x, _, _| std::mem::replace(x, U128(x.0 + 1)),
            |a, b| U128(a.0.wrapping_add(b.0)),
            U128(0),
        );
        check_atomic("cas_loop", (true, false), small, &w, &o).unwrap();
        // A carry into the high half that should not be there.
        let mut high = w.clone();
        high[0].0 += 1 << 64;
        assert!(check_atomic("cas_loop", (true, false), small, &high, &o).is_err());
    }

    /// Zeroed memory as the GPU's `zeros` gives it, aligned for any mutex.
    #[repr(C, align(128))]
    struct Zeroed([u32; 64]);

    #[test]
    fn the_host_reads_mutexes_where_the_device_crate_puts_them() {
        // Mutexes used in zeroed memory through `from_ptr`, as the kernels use theirs, then
        // read back as words, as the runner reads a download.
        assert_eq!(size_of::<Lock<table::Bucket>>(), 64);
        let mut mem: Vec<Zeroed> = (0..2).map(|_| Zeroed([0; 64])).collect();
        let base = mem.as_mut_ptr().cast::<Lock<table::Bucket>>();
        let words = |mem: *const Zeroed| -> Vec<u32> {
            // SAFETY: the buffer's 2 x 64 words, all initialized (zeroed, then written).
            unsafe { std::slice::from_raw_parts(mem.cast::<u32>(), 128) }.to_vec()
        };
        // SAFETY: zeroed memory is an unlocked Mutex<Bucket> with an empty bucket.
        let (m1, m2) = unsafe { (Mutex::from_ptr(base.add(1)), Mutex::from_ptr(base.add(2))) };
        m1.lock().insert(42);
        let held = m2.lock();
        let w = words(mem.as_ptr());
        drop(held);
        // SAFETY: a Bucket is u32s.
        let (b1, free1) = unsafe { mutex_at::<table::Bucket>(&w, 1) };
        assert_eq!((b1.len, b1.keys[0], b1.counts[0], free1), (1, 42, 1, true));
        let (_, free2) = unsafe { mutex_at::<table::Bucket>(&w, 2) };
        assert!(!free2, "a held lock reads as held");
        let (_, free0) = unsafe { mutex_at::<table::Bucket>(&w, 0) };
        assert!(free0);

        let mut mem: Vec<Zeroed> = (0..2).map(|_| Zeroed([0; 64])).collect();
        assert_eq!(size_of::<CounterMutex>(), 256);
        // SAFETY: as above, a Mutex<CachePadded<u32>> in zeroed memory.
        let c = unsafe { Mutex::from_ptr(mem.as_mut_ptr().cast::<CounterMutex>()) };
        for _ in 0..7 {
            **c.lock() += 1;
        }
        let w = words(mem.as_ptr());
        // SAFETY: CachePadded<u32> is a u32 and padding.
        let (v, free) = unsafe { mutex_at::<CachePadded<u32>>(&w, 0) };
        assert_eq!((v.into_inner(), free), (7, true));
    }
}
