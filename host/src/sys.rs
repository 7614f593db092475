//! `Sys`-scope primitives that a host thread and a kernel use together, on the same words.
//!
//! The device crate's primitives are written once against its atomic layer, which has two
//! backends: PTX `asm!` in a kernel, `core::sync::atomic` everywhere else. This crate depends on
//! it, so on the host [`Latch`], [`Semaphore`], [`Barrier`] and [`Atomic`] are the very same
//! types, running the very same algorithm, on core atomics. [`SysWords`] views word `i` of a
//! [`MappedBuffer<u32>`] (or of any `[AtomicU32]`, for host-only tests) as one of them, waiting
//! with [`HostBackoff`]; the kernel views the same word through the buffer's
//! [`device_ptr`](MappedBuffer::device_ptr) with `Latch::<Sys>::from_ptr` and friends.
//!
//! ```no_run
//! use ptx_sync_host::sys::SysWords;
//! use ptx_sync_host::{Device, MappedBuffer};
//! # fn main() -> Result<(), ptx_sync_host::Error> {
//! let gpu = Device::open(0)?;
//! let words = MappedBuffer::<u32>::new(&gpu, 64)?;
//! words.atomics_u32()[0].store(132, std::sync::atomic::Ordering::Relaxed); // 132 arrivals
//! // ... launch a kernel that gets `words.device_ptr()` and whose blocks each run
//! //     `Latch::<Sys>::from_ptr(ptr).count_down()` ...
//! words.latch(0).wait(); // spins briefly, then yields, then sleeps: no core burnt
//! # Ok(()) }
//! ```
//!
//! # Why sharing a word between a host thread and a kernel is sound
//!
//! - Same words: the host and the GPU address one allocation (`cuMemHostAlloc` with
//!   `DEVICEMAP`: page-locked host memory mapped into the GPU's address space), and the
//!   primitives are `repr(C)` over one `u32` (`Latch`, `Semaphore`) or one 8-byte aligned `u64`
//!   (`Barrier`: two words), so both sides see one layout. Every host access goes through an atomic; the views borrow the buffer,
//!   so they cannot outlive it.
//! - Same algorithm, same orders: the host runs the `Ordering`s the GPU runs (an acquire CAS,
//!   a release add, acquire polling). A kernel must use scope [`Sys`]: its operations are then
//!   `ld.acquire.sys` / `atom.release.sys` / `fence.sc.sys`, which the PTX memory model orders
//!   with respect to every thread of the system, host threads included. `Gpu` scope on such a
//!   word would be a data race with the host.
//! - The transport: GPU loads and stores of mapped memory cross PCIe (or NVLink-C2C) to host
//!   DRAM, coherently with the CPU caches; the host side uses ordinary C++/Rust atomics.
//!
//! # Limitation: concurrent read-modify-writes from both sides
//!
//! libcu++ allows a CPU thread and a GPU thread to access one atomic object concurrently in
//! host memory only where the device attribute `hostNativeAtomicSupported`
//! (`CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED`, [`Device::host_native_atomics`]) is 1,
//! i.e. where the link between GPU and CPU carries native atomics (such as NVLink-C2C); the
//! CUDA Programming Guide warns that atomics on mapped page-locked memory are "not atomic from
//! the point of view of the host or other devices". On an x86 host over PCIe the attribute is
//! 0 (it is on this project's H100). What holds everywhere: loads and stores from both sides, RMWs among GPU
//! threads, RMWs among host threads. What needs native atomics: a host RMW racing a GPU RMW on
//! the same word. So on such a machine:
//! - a [`Latch`] the GPU counts down and the host waits on (loads only), a flag stored by one
//!   side and polled by the other, are always fine;
//! - a [`Semaphore`] (acquire = CAS, release = add: both RMWs) is fine in protocols where the
//!   host and the GPU never RMW the word at the same time, e.g. a ping-pong where the side that
//!   releases a unit then waits for an answer on another word; a host that releases units while
//!   GPU threads CAS the same word needs native atomics. A host that keeps several units in
//!   flight without them releases them in batches, each only once every earlier unit was
//!   acquired (the word is then 0, so no GPU CAS can succeed while the host adds). The GPU
//!   suite's `sys_semaphore_window_racing_rmw` runs the race where the attribute is 1, and that
//!   batched protocol (16 units a batch) where it is 0, with exact counts either way.
//! - a [`Barrier`] with arrivals from both sides needs native atomics.
//!
//! Where host and GPU must read-modify-write one word at the same time on such a machine, put
//! the word in managed memory instead: [`ManagedBuffer`](crate::ManagedBuffer) (a `SysWords`
//! too) needs `concurrentManagedAccess` rather than native host atomics, at the cost of page
//! migrations.
//!
//! Without native atomics a host RMW racing GPU RMWs on one word does lose updates: a host
//! releasing units of a `Semaphore<Sys>` while 132 blocks CAS the same word lost some in every
//! run on this project's H100, while the protocols above accounted for every unit (the runs:
//! bench/NOTES.md, "Host memory").
//!
//! # Waiting on host memory
//!
//! The GPU appears to serve its accesses to host memory about one at a time, so a handoff
//! that many blocks poll for in host memory takes far longer than one thread's round trip, and
//! slower GPU polls do not help: poll host memory from one GPU thread and relay through device
//! memory at `Gpu` scope. [`HostBackoff`] trades latency for not burning a core: its doubling
//! sleeps overshoot such long waits, where a spinning host answers sooner. The measurements
//! behind this are in bench/NOTES.md ("Host memory").

use crate::{Device, MappedBuffer, Result};
use cudarc::driver::sys;
use ptx_sync::wait::{poll_until, poll_until_for};
use ptx_sync::{Atomic, Backoff, Barrier, Latch, Ordering, Semaphore, Sys, TimedOut};
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

/// A host thread's waiting policy: spin a little (a GPU answer often takes about a
/// microsecond), then `yield_now`, then sleep, doubling from 20 us to 1 ms, so a host thread
/// that waits long does not burn a core.
///
/// Its [`waited_ns`](Backoff::waited_ns) is real time since the wait began, so the timed waits
/// of the primitives (`Latch::wait_for`, `Semaphore::try_acquire_for`, [`wait_until_for`])
/// measure wall-clock time on the host. (The `*_until` forms take a `ptx_sync::clock::Instant`,
/// which on the host is the device crate's virtual clock, not wall-clock time: from host code,
/// use the `*_for` forms with a `Duration`.)
#[derive(Clone, Copy, Debug)]
pub struct HostBackoff {
    polls: u32,
    start: Instant,
}

impl HostBackoff {
    /// Pauses that spin (`spin_loop` hints) before the first yield.
    pub const SPINS: u32 = 64;
    /// Pauses that call `std::thread::yield_now` before the first sleep.
    pub const YIELDS: u32 = 64;
    /// The first sleep; each later one doubles, up to [`MAX_SLEEP`](Self::MAX_SLEEP).
    pub const FIRST_SLEEP: Duration = Duration::from_micros(20);
    /// The longest sleep between two polls.
    pub const MAX_SLEEP: Duration = Duration::from_millis(1);

    /// How long pause number `n` (counting from 1) sleeps; zero while spinning or yielding.
    pub fn sleep_of(n: u32) -> Duration {
        match n.checked_sub(Self::SPINS + Self::YIELDS + 1) {
            None => Duration::ZERO,
            Some(k) => Self::FIRST_SLEEP
                .saturating_mul(1 << k.min(16))
                .min(Self::MAX_SLEEP),
        }
    }
}

impl Default for HostBackoff {
    fn default() -> Self {
        HostBackoff {
            polls: 0,
            start: Instant::now(),
        }
    }
}

impl Backoff for HostBackoff {
    fn pause(&mut self) {
        self.polls = self.polls.saturating_add(1);
        if self.polls <= Self::SPINS {
            for _ in 0..4 {
                std::hint::spin_loop();
            }
        } else if self.polls <= Self::SPINS + Self::YIELDS {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Self::sleep_of(self.polls));
        }
    }

    fn waited_ns(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// Words that a host thread views as `Sys`-scope primitives, waiting with [`HostBackoff`].
/// Implemented for [`MappedBuffer<u32>`] and [`ManagedBuffer<u32>`](crate::ManagedBuffer)
/// (shared with kernels) and `[AtomicU32]` (host only: the same code under plain threads, for
/// tests).
///
/// Each view borrows the words, so it cannot outlive them. A kernel views the same word at
/// `device_ptr() + 4 * i` with the same type at scope `Sys` (any backoff: the policy is not part
/// of the layout). Panics if `i` is out of range.
pub trait SysWords {
    /// The words, as std atomics.
    fn sys_words(&self) -> &[AtomicU32];

    /// Word `i` as a [`Latch`]: it holds the arrivals still expected (store the count before
    /// the kernel that counts down is launched).
    fn latch(&self, i: usize) -> &Latch<Sys, HostBackoff> {
        // SAFETY: the word is a valid, aligned u32 for the borrow of `self`, and the host
        // reaches it only through atomics (this view or `sys_words`).
        unsafe { Latch::from_ptr(self.sys_words()[i].as_ptr()) }
    }

    /// Word `i` as a counting [`Semaphore`] of at most `MAX` units (zero: no free unit). A
    /// count above `MAX` is a logic error that `release` reports in a debug build, not a
    /// memory-safety one: every access is atomic.
    fn semaphore<const MAX: u32>(&self, i: usize) -> &Semaphore<Sys, MAX, HostBackoff> {
        // SAFETY: as in `latch`.
        unsafe { Semaphore::from_ptr(self.sys_words()[i].as_ptr()) }
    }

    /// Word `i` as an [`Atomic<u32, Sys>`]: a flag or counter. Wait on it from the host with
    /// [`wait_until`] / [`wait_until_for`] ([`Atomic::wait`] polls with the GPU's policy,
    /// which on the host never yields).
    fn flag(&self, i: usize) -> &Atomic<u32, Sys> {
        // SAFETY: as in `latch`.
        unsafe { Atomic::from_ptr(self.sys_words()[i].as_ptr()) }
    }

    /// Words `i..i + 2` as a [`Barrier`]: its one `u64` (little-endian: word `i` holds bits
    /// 0..=31), which must be 8-byte aligned: an even `i` in a [`MappedBuffer`] (whose
    /// allocation is page-aligned). Panics if it is not. Initialize it with `Barrier::init`
    /// before anyone arrives, and reach the two words only through this view while it is in
    /// use (a `u32` access racing the barrier's `u64` RMWs would be a mixed-size race). Arrivals
    /// from both the host and the GPU race as RMWs on one word: see the module's limitation.
    fn barrier(&self, i: usize) -> &Barrier<Sys, HostBackoff> {
        let words = &self.sys_words()[i..i + 2];
        let ptr = words[0].as_ptr().cast::<u64>();
        assert!(
            ptr.is_aligned(),
            "SysWords::barrier: word {i} is not 8-byte aligned (a Barrier is one u64)"
        );
        // SAFETY: two consecutive valid u32s, 8-byte aligned (checked): one u64, accessed only
        // atomically.
        unsafe { Barrier::from_ptr(ptr) }
    }
}

impl SysWords for [AtomicU32] {
    fn sys_words(&self) -> &[AtomicU32] {
        self
    }
}

impl SysWords for MappedBuffer<u32> {
    fn sys_words(&self) -> &[AtomicU32] {
        self.atomics_u32()
    }
}

/// Waits with [`HostBackoff`] until `pred(flag)` holds; returns that value. `order` is the
/// load order (Relaxed, Acquire, SeqCst).
pub fn wait_until(
    flag: &Atomic<u32, Sys>,
    order: Ordering,
    mut pred: impl FnMut(u32) -> bool,
) -> u32 {
    poll_until::<HostBackoff, _>(|| Some(flag.load(order)).filter(|&v| pred(v)))
}

/// [`wait_until`] for at most `limit` (wall-clock time).
pub fn wait_until_for(
    flag: &Atomic<u32, Sys>,
    limit: Duration,
    order: Ordering,
    mut pred: impl FnMut(u32) -> bool,
) -> std::result::Result<u32, TimedOut> {
    poll_until_for::<HostBackoff, _>(limit, || Some(flag.load(order)).filter(|&v| pred(v)))
}

impl Device {
    /// Whether the link between this GPU and the host carries native atomics
    /// (`CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED`): only then may a host RMW and a GPU
    /// RMW race on one word of host memory (see the [module](self)'s limitation).
    pub fn host_native_atomics(&self) -> Result<bool> {
        self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED)
            .map(|v| v != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
    use std::thread;

    fn words(n: usize) -> Vec<AtomicU32> {
        (0..n).map(|_| AtomicU32::new(0)).collect()
    }

    /// `N` zeroed words that start 8-byte aligned (a `Barrier` at any even index).
    #[repr(C, align(8))]
    struct Aligned<const N: usize>([AtomicU32; N]);

    fn aligned<const N: usize>() -> Aligned<N> {
        Aligned(std::array::from_fn(|_| AtomicU32::new(0)))
    }

    /// A barrier's `u64` as its two words (little-endian).
    fn halves(word: u64) -> [u32; 2] {
        [word as u32, (word >> 32) as u32]
    }

    #[test]
    fn views_are_the_words_themselves() {
        let words = aligned::<8>();
        let w = &words.0[..];
        w[1].store(3, Relaxed);
        w.latch(1).count_down_n(2);
        assert_eq!(w[1].load(Relaxed), 1);
        w.semaphore::<4>(2).release(3);
        assert_eq!(w[2].load(Relaxed), 3);
        assert!(w.semaphore::<4>(2).try_acquire());
        assert_eq!(w[2].load(Relaxed), 2);
        w.flag(5).store(7, Release);
        assert_eq!(w[5].load(Acquire), 7);
        w.barrier(4).init(2);
        assert_eq!(
            [4, 5].map(|i| w[i].load(Relaxed)),
            halves(ptx_sync::barrier::init_word(2))
        );
        assert_eq!(w.flag(0).as_ptr(), w[0].as_ptr());
    }

    #[test]
    #[should_panic]
    fn a_barrier_needs_two_words() {
        let words = aligned::<3>();
        let w = &words.0[..];
        let _ = w.barrier(2);
    }

    #[test]
    #[should_panic(expected = "not 8-byte aligned")]
    fn a_barrier_needs_an_aligned_u64() {
        let words = aligned::<4>();
        let w = &words.0[..];
        let _ = w.barrier(1);
    }

    #[test]
    fn backoff_spins_then_yields_then_sleeps_with_a_cap() {
        let first_sleep = HostBackoff::SPINS + HostBackoff::YIELDS + 1;
        assert_eq!(HostBackoff::sleep_of(1), Duration::ZERO);
        assert_eq!(HostBackoff::sleep_of(first_sleep - 1), Duration::ZERO);
        assert_eq!(HostBackoff::sleep_of(first_sleep), HostBackoff::FIRST_SLEEP);
        assert_eq!(
            HostBackoff::sleep_of(first_sleep + 1),
            2 * HostBackoff::FIRST_SLEEP
        );
        assert_eq!(HostBackoff::sleep_of(u32::MAX), HostBackoff::MAX_SLEEP);
        // Real time: three sleeping pauses take at least 20 + 40 + 80 us.
        let mut b = HostBackoff::default();
        for _ in 0..first_sleep + 2 {
            b.pause();
        }
        assert!(b.waited_ns() >= 140_000, "{} ns", b.waited_ns());
    }

    #[test]
    fn latch_fan_in_publishes_every_write() {
        const THREADS: usize = 8;
        for _ in 0..50 {
            let w = words(1 + THREADS);
            w[0].store(THREADS as u32, Relaxed);
            thread::scope(|s| {
                for t in 0..THREADS {
                    let w = &w;
                    s.spawn(move || {
                        w[1 + t].store(t as u32 + 100, Relaxed);
                        w.latch(0).count_down();
                    });
                }
                w.latch(0).wait();
                for t in 0..THREADS {
                    assert_eq!(w[1 + t].load(Relaxed), t as u32 + 100);
                }
            });
        }
    }

    #[test]
    fn timed_waits_are_wall_clock() {
        let w = words(2);
        w[0].store(1, Relaxed);
        let start = Instant::now();
        assert_eq!(
            w.latch(0).wait_for(Duration::from_millis(30)),
            Err(TimedOut)
        );
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(30), "{took:?}");
        assert!(took < Duration::from_secs(5), "{took:?}");
        let start = Instant::now();
        let r = wait_until_for(w.flag(1), Duration::from_millis(20), Acquire, |v| v == 9);
        assert_eq!(r, Err(TimedOut));
        assert!(start.elapsed() >= Duration::from_millis(20));
        assert!(!w
            .semaphore::<1>(1)
            .try_acquire_for(Duration::from_millis(1)));
    }

    #[test]
    fn semaphore_ping_pong_accounts_for_every_message() {
        const ROUNDS: u32 = 5_000;
        // Word 0: host -> worker units, 1: worker -> host units, 2: payload, 3: reply.
        let w = words(4);
        thread::scope(|s| {
            let w2 = &w;
            let worker = s.spawn(move || {
                let mut ok = 0;
                for r in 1..=ROUNDS {
                    w2.semaphore::<1>(0).acquire();
                    ok += (w2[2].load(Relaxed) == r) as u32;
                    w2[3].store(r * 3, Relaxed);
                    w2.semaphore::<1>(1).release(1);
                }
                ok
            });
            let mut replies = 0;
            for r in 1..=ROUNDS {
                w[2].store(r, Relaxed);
                w.semaphore::<1>(0).release(1);
                w.semaphore::<1>(1).acquire();
                replies += (w[3].load(Relaxed) == r * 3) as u32;
            }
            assert_eq!(worker.join().unwrap(), ROUNDS);
            assert_eq!(replies, ROUNDS);
        });
        assert_eq!([w[0].load(Relaxed), w[1].load(Relaxed)], [0, 0]);
    }

    #[test]
    fn semaphore_bounds_the_holders_and_loses_no_unit() {
        const THREADS: u32 = 8;
        const EACH: u32 = 2_000;
        const UNITS: u32 = 3;
        // Word 0: the semaphore, 1: holders now, 2: most holders seen, 3: acquisitions.
        let w = words(4);
        w.semaphore::<UNITS>(0).release(UNITS);
        thread::scope(|s| {
            for _ in 0..THREADS {
                let w = &w;
                s.spawn(move || {
                    for _ in 0..EACH {
                        w.semaphore::<UNITS>(0).acquire();
                        let now = w[1].fetch_add(1, Relaxed) + 1;
                        w[2].fetch_max(now, Relaxed);
                        w[3].fetch_add(1, Relaxed);
                        w[1].fetch_sub(1, Relaxed);
                        w.semaphore::<UNITS>(0).release(1);
                    }
                });
            }
        });
        assert_eq!(w[0].load(Relaxed), UNITS);
        assert!(w[2].load(Relaxed) <= UNITS);
        assert_eq!(w[3].load(Relaxed), THREADS * EACH);
    }

    #[test]
    fn flag_wait_sees_the_payload() {
        let w = words(2);
        thread::scope(|s| {
            s.spawn(|| {
                thread::sleep(Duration::from_millis(5));
                w[1].store(41, Relaxed);
                w.flag(0).store(1, Release);
            });
            assert_eq!(wait_until(w.flag(0), Acquire, |v| v != 0), 1);
            assert_eq!(w[1].load(Relaxed), 41);
        });
    }

    #[test]
    fn barrier_phases_with_neighbour_checks() {
        const THREADS: usize = 4;
        const PHASES: u32 = 501;
        // Words 0..2: the barrier; 2..2+2*THREADS: double-buffered values.
        let words = aligned::<{ 2 + 2 * THREADS }>();
        let w = &words.0[..];
        w.barrier(0).init(THREADS as u32);
        let stale = AtomicU32::new(0);
        thread::scope(|s| {
            for t in 0..THREADS {
                let (w, stale) = (&w, &stale);
                s.spawn(move || {
                    for p in 0..PHASES {
                        let buf = 2 + (p as usize % 2) * THREADS;
                        w[buf + t].store(p * 10 + t as u32, Relaxed);
                        w.barrier(0).arrive_and_wait();
                        let n = (t + 1) % THREADS;
                        if w[buf + n].load(Relaxed) != p * 10 + n as u32 {
                            stale.fetch_add(1, Relaxed);
                        }
                    }
                });
            }
        });
        assert_eq!(stale.load(Relaxed), 0);
        let fresh = ptx_sync::barrier::init_word(THREADS as u32);
        assert_eq!(
            [0, 1].map(|i| w[i].load(Relaxed)),
            halves(fresh | (PHASES as u64 & 1) << 63),
            "the barrier after {PHASES} phases: the fresh word with the last phase's bit"
        );
    }
}
