//! Kernels of the lock half of the calling-pattern matrix (tests/src/cases/patterns_locks.rs):
//! Mutex, SpinLock, TicketLock, BinarySemaphore, Semaphore<_, 4> as a lock and as a counting
//! semaphore, called the ways kernels call them: the lanes of one warp on 2 and on 32 objects,
//! only some lanes calling, every thread on one object, two locks nested in a fixed order,
//! objects in global and in shared memory, and a table of 65,536 per-bucket locks.
//!
//! Every kernel is generic over [`Lock`]; the `pattern_<kind>_*` entry points at the bottom
//! instantiate it. The host side recomputes every expected count from the same formulas, shared as
//! source: tests/src/cases/patterns_locks_plan.rs.

#[path = "../../src/cases/patterns_locks_plan.rs"]
mod plan;

use core::mem::size_of;
use plan::*;
use ptx_sync::{
    block, Atomic, BinarySemaphore, Cta, Gpu, Mutex, Ordering::*, Scope, Semaphore, SpinLock,
    TicketLock,
};

/// One lock kind as the patterns use it.
pub(crate) trait Lock: Sized {
    /// How many holders at once it admits (1 for a lock).
    const UNITS: u32;
    /// Makes `*p` an unlocked lock with zeroed data (a semaphore with `UNITS` free units).
    unsafe fn init(p: *mut Self);
    /// Takes the lock at `p`, bumps its own data (if it has any), runs `f`, releases it.
    unsafe fn locked(p: *mut Self, f: impl FnOnce());
    /// The lock's own data (0 if it has none). Only read when no one holds the lock.
    #[inline(always)]
    unsafe fn data(_: *mut Self) -> u32 {
        0
    }
    /// Free units now: 1 for an unlocked lock, 0 for a held one; a semaphore's count.
    unsafe fn free(p: *mut Self) -> u32;
}

impl<S: Scope> Lock for Mutex<u32, S> {
    const UNITS: u32 = 1;
    #[inline(always)]
    unsafe fn init(p: *mut Self) {
        p.write(Mutex::new(0));
    }
    #[inline(always)]
    unsafe fn locked(p: *mut Self, f: impl FnOnce()) {
        let mut g = Mutex::from_ptr(p).lock();
        // Plain read-modify-write of the guarded data: only mutual exclusion keeps it exact.
        *g += 1;
        f();
        drop(g);
    }
    #[inline(always)]
    unsafe fn data(p: *mut Self) -> u32 {
        (*p).data_ptr().read()
    }
    #[inline(always)]
    unsafe fn free(p: *mut Self) -> u32 {
        Mutex::from_ptr(p).try_lock().is_some() as u32
    }
}

/// A lock with no data of its own whose guard releases it on drop.
macro_rules! guard_lock {
    ($lock:ty, $ctor:ident) => {
        impl<S: Scope> Lock for $lock {
            const UNITS: u32 = 1;
            #[inline(always)]
            unsafe fn init(p: *mut Self) {
                p.write($ctor::new(()));
            }
            #[inline(always)]
            unsafe fn locked(p: *mut Self, f: impl FnOnce()) {
                let g = $ctor::from_ptr(p).lock();
                f();
                drop(g);
            }
            #[inline(always)]
            unsafe fn free(p: *mut Self) -> u32 {
                $ctor::from_ptr(p).try_lock().is_some() as u32
            }
        }
    };
}
guard_lock!(SpinLock<S>, Mutex);
guard_lock!(TicketLock<(), S>, TicketLock);

/// A semaphore used as a lock: one unit (`BinarySemaphore`, or `Semaphore<_, 4>` holding 1).
impl<S: Scope, const MAX: u32> Lock for Semaphore<S, MAX> {
    const UNITS: u32 = 1;
    #[inline(always)]
    unsafe fn init(p: *mut Self) {
        p.write(Semaphore::new(1));
    }
    #[inline(always)]
    unsafe fn locked(p: *mut Self, f: impl FnOnce()) {
        let s = &*p;
        s.acquire();
        f();
        s.release(1);
    }
    #[inline(always)]
    unsafe fn free(p: *mut Self) -> u32 {
        (*p).available()
    }
}

/// A counting semaphore holding all its `N` units: up to `N` holders at once.
#[repr(transparent)]
pub struct Counting<S: Scope, const N: u32>(Semaphore<S, N>);

impl<S: Scope, const N: u32> Lock for Counting<S, N> {
    const UNITS: u32 = N;
    #[inline(always)]
    unsafe fn init(p: *mut Self) {
        p.write(Counting(Semaphore::new(N)));
    }
    /// As a semaphore used as a lock (`Counting` is `repr(transparent)` over it).
    #[inline(always)]
    unsafe fn locked(p: *mut Self, f: impl FnOnce()) {
        <Semaphore<S, N> as Lock>::locked(p.cast(), f)
    }
    #[inline(always)]
    unsafe fn free(p: *mut Self) -> u32 {
        <Semaphore<S, N> as Lock>::free(p.cast())
    }
}

/// The critical section: a plain read-modify-write of `cnt` (atomic if the lock admits
/// several holders) inside a holders probe (`holders` now, `most` ever).
#[inline(always)]
unsafe fn section(cnt: *mut u32, holders: *mut u32, most: *mut u32, exclusive: bool) {
    let h = Atomic::<u32, Gpu>::from_ptr(holders);
    if exclusive {
        let v = cnt.read();
        Atomic::<u32, Gpu>::from_ptr(most).fetch_max(h.fetch_add(1, Relaxed) + 1, Relaxed);
        cnt.write(v + 1);
    } else {
        Atomic::<u32, Gpu>::from_ptr(most).fetch_max(h.fetch_add(1, Relaxed) + 1, Relaxed);
        Atomic::<u32, Gpu>::from_ptr(cnt).fetch_add(1, Relaxed);
    }
    h.fetch_sub(1, Relaxed);
}

/// `iters` iterations of `shape` on the [`NOBJ`] locks at `locks`, with their counters in
/// `stats`: counts, holders now, most holders (`NOBJ` words each).
#[inline(always)]
unsafe fn run<L: Lock>(locks: *mut L, stats: *mut u32, shape: u32, iters: u32) {
    let (cnt, holders, most) = (stats, stats.add(NOBJ), stats.add(2 * NOBJ));
    let t = block::thread_rank();
    let g = block::rank() * block::dim_x() + t;
    let exclusive = L::UNITS == 1;
    for it in 0..iters {
        let (a, b) = objects(shape, t, g, it);
        if a == NONE {
            continue;
        }
        let a = a as usize;
        L::locked(locks.add(a), || {
            section(cnt.add(a), holders.add(a), most.add(a), exclusive);
            if b != NONE {
                let b = b as usize;
                L::locked(locks.add(b), || {
                    section(cnt.add(b), holders.add(b), most.add(b), exclusive)
                });
            }
        });
    }
}

/// Objects in global memory: `locks` ([`NOBJ`] of them, zeroed by the host), `stats`
/// `5 * NOBJ` words: counts, holders now, most holders, then (written by `shape == PROBE`)
/// each lock's data and free units. `shape == INIT` makes them unlocked locks first.
#[inline(always)]
unsafe fn shapes_global<L: Lock>(locks: *mut L, stats: *mut u32, shape: u32, iters: u32) {
    let g = (block::rank() * block::dim_x() + block::thread_rank()) as usize;
    match shape {
        INIT => {
            if g < NOBJ {
                L::init(locks.add(g));
            }
        }
        PROBE => {
            if g < NOBJ {
                *stats.add(3 * NOBJ + g) = L::data(locks.add(g));
                *stats.add(4 * NOBJ + g) = L::free(locks.add(g));
            }
        }
        _ => run(locks, stats, shape, iters),
    }
}

/// Objects in shared memory, [`NOBJ`] per block: dynamic shared memory holds the locks, then
/// counts, holders, most (`NOBJ` words each); the host asks for `NOBJ * size_of::<L>() +
/// 12 * NOBJ` bytes. `out[(block * NOBJ + obj) * 5 ..]`: count, holders left, most holders,
/// data, free units.
#[inline(always)]
unsafe fn shapes_shared<L: Lock>(out: *mut u32, shape: u32, iters: u32) {
    let smem = block::dynamic_shared_memory();
    let locks = smem.cast::<L>();
    let stats = smem.add(NOBJ * size_of::<L>()).cast::<u32>();
    let t = block::thread_rank() as usize;
    if t < NOBJ {
        L::init(locks.add(t));
        for k in 0..3 {
            *stats.add(k * NOBJ + t) = 0;
        }
    }
    block::sync();
    run(locks, stats, shape, iters);
    block::sync();
    if t < NOBJ {
        let o = out.add((block::rank() as usize * NOBJ + t) * 5);
        *o = *stats.add(t);
        *o.add(1) = *stats.add(NOBJ + t);
        *o.add(2) = *stats.add(2 * NOBJ + t);
        *o.add(3) = L::data(locks.add(t));
        *o.add(4) = L::free(locks.add(t));
    }
}

/// A table of [`BUCKETS`] per-bucket locks in global memory. `slots`: `BUCKETS * SLOTS`
/// pairs (key + 1 or 0 for empty, count), guarded by the bucket's lock. `out[0]`: inserts
/// that found their bucket full; `out[1 + b]` the data of lock `b`, `out[1 + BUCKETS + b]`
/// its free units (both written by `mode` 2). `mode` 0 initialises the locks, 1 inserts keys
/// `key_of(0..n)` (grid-stride), 2 reads the locks back.
#[inline(always)]
unsafe fn table<L: Lock>(locks: *mut L, slots: *mut u32, out: *mut u32, mode: u32, n: u32) {
    let stride = (block::count() * block::dim_x()) as usize;
    let g = (block::rank() * block::dim_x() + block::thread_rank()) as usize;
    match mode {
        0 => {
            for b in (g..BUCKETS).step_by(stride) {
                L::init(locks.add(b));
            }
        }
        1 => {
            let overflow = Atomic::<u32, Gpu>::from_ptr(out);
            for i in (g..n as usize).step_by(stride) {
                let key = key_of(i as u32);
                let b = bucket_of(key);
                let s = slots.add(b * SLOTS * 2);
                L::locked(locks.add(b), || {
                    // Plain accesses only: the bucket's lock is all that keeps them exact.
                    for k in 0..SLOTS {
                        let stored = *s.add(2 * k);
                        if stored == key + 1 {
                            *s.add(2 * k + 1) += 1;
                            return;
                        }
                        if stored == 0 {
                            *s.add(2 * k) = key + 1;
                            *s.add(2 * k + 1) = 1;
                            return;
                        }
                    }
                    overflow.fetch_add(1, Relaxed);
                });
            }
        }
        _ => {
            for b in (g..BUCKETS).step_by(stride) {
                *out.add(1 + b) = L::data(locks.add(b));
                *out.add(1 + BUCKETS + b) = L::free(locks.add(b));
            }
        }
    }
}

/// The sizes the kernels use, for the host to check against its own (`out`, 12 words):
/// Mutex<u32>, SpinLock, TicketLock<()>, BinarySemaphore, Semaphore<_, 4>, Counting<_, 4>,
/// at Gpu scope then at Cta scope.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn pattern_lock_sizes(out: *mut u32) {
    let sizes = [
        size_of::<Mutex<u32, Gpu>>(),
        size_of::<SpinLock<Gpu>>(),
        size_of::<TicketLock<(), Gpu>>(),
        size_of::<BinarySemaphore<Gpu>>(),
        size_of::<Semaphore<Gpu, 4>>(),
        size_of::<Counting<Gpu, 4>>(),
        size_of::<Mutex<u32, Cta>>(),
        size_of::<SpinLock<Cta>>(),
        size_of::<TicketLock<(), Cta>>(),
        size_of::<BinarySemaphore<Cta>>(),
        size_of::<Semaphore<Cta, 4>>(),
        size_of::<Counting<Cta, 4>>(),
    ];
    if block::rank() == 0 && block::thread_rank() == 0 {
        for (i, s) in sizes.iter().enumerate() {
            *out.add(i) = *s as u32;
        }
    }
}

/// `pattern_<kind>_global` / `_shared` (and `_table` where given) for one lock kind.
macro_rules! pattern_kernels {
    ($gpu:ty, $cta:ty, $global:ident, $shared:ident $(, $table:ident)?) => {
        /// [`shapes_global`] for this kind.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $global(
            locks: *mut $gpu,
            stats: *mut u32,
            shape: u32,
            iters: u32,
        ) {
            shapes_global::<$gpu>(locks, stats, shape, iters)
        }

        /// [`shapes_shared`] for this kind (Cta scope).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $shared(out: *mut u32, shape: u32, iters: u32) {
            shapes_shared::<$cta>(out, shape, iters)
        }

        $(
        /// [`table`] for this kind.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $table(
            locks: *mut $gpu,
            slots: *mut u32,
            out: *mut u32,
            mode: u32,
            n: u32,
        ) {
            table::<$gpu>(locks, slots, out, mode, n)
        }
        )?
    };
}

pattern_kernels!(
    Mutex<u32, Gpu>,
    Mutex<u32, Cta>,
    pattern_mutex_global,
    pattern_mutex_shared,
    pattern_mutex_table
);
pattern_kernels!(
    SpinLock<Gpu>,
    SpinLock<Cta>,
    pattern_spinlock_global,
    pattern_spinlock_shared,
    pattern_spinlock_table
);
pattern_kernels!(
    TicketLock<(), Gpu>,
    TicketLock<(), Cta>,
    pattern_ticketlock_global,
    pattern_ticketlock_shared,
    pattern_ticketlock_table
);
pattern_kernels!(
    BinarySemaphore<Gpu>,
    BinarySemaphore<Cta>,
    pattern_binary_semaphore_global,
    pattern_binary_semaphore_shared,
    pattern_binary_semaphore_table
);
pattern_kernels!(
    Semaphore<Gpu, 4>,
    Semaphore<Cta, 4>,
    pattern_semaphore_as_lock_global,
    pattern_semaphore_as_lock_shared,
    pattern_semaphore_as_lock_table
);
pattern_kernels!(
    Counting<Gpu, 4>,
    Counting<Cta, 4>,
    pattern_semaphore_counting_global,
    pattern_semaphore_counting_shared
);
