//! Benchmark kernels: the Rust side of `cargo xtask bench-gpu`. Every kernel has the name,
//! shape and work of its CUDA C++ counterpart in bench/cpp/reference.cu, so the two can be timed
//! against each other and their SASS compared.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx, core_float_math)]
#![allow(non_snake_case, clippy::missing_safety_doc)]

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
use ptx_sync::shared::Shared;
// `mbarrier` (BlockBarrier) is sm_80+: its kernels exist only in sm_80+ builds.
#[cfg(target_feature = "sm_80")]
use ptx_sync::BlockBarrier;
use ptx_sync::{
    block, fence, volatile, Atomic, Barrier, CachePadded, Cta, Gpu, GridBarrier, Latch, Mutex,
    NanoSleep, Ordering, Ordering::*, Scope, ScopeKind, Semaphore, Spin, Sys,
};

// The host runner uses some of its items (the expected table, the comparison).
#[allow(dead_code)]
#[path = "../../src/table.rs"]
mod table;

// The user-shaped rows (binary_semaphore/lock, semaphore/mpmc_queue, scan/decoupled_lookback,
// latch/per_tile): their kernels are in user_shapes.rs.
mod user_shapes;

// The state-space rows (space/*): generic against `.shared::cta` / `.global` atomics.
mod space;

// The reader-writer lock and turn ring rows (rwlock/*, queue/turn_ring/*).
mod rwlock_queue;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { core::arch::nvptx::trap() }
}

#[inline(always)]
fn global_id() -> usize {
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }
}

/// "contended": the block's own word at cta scope, one word for the grid at gpu scope;
/// "distinct": one word per thread.
#[inline(always)]
unsafe fn word<T, S: Scope>(words: *mut T, contended: bool) -> *mut T {
    match (contended, S::KIND) {
        (true, ScopeKind::Cta) => words.add(_block_idx_x() as usize * 32),
        (true, _) => words,
        (false, _) => words.add(global_id()),
    }
}

macro_rules! op {
    (FetchAdd, $a:ident, $tid:ident, $i:ident, $t:ty, $o:ident) => {
        $a.fetch_add(1, $o)
    };
    (CasLoop, $a:ident, $tid:ident, $i:ident, $t:ty, $o:ident) => {
        match $a.fetch_update($o, Relaxed, |v| Some(v.wrapping_add(1))) {
            Ok(v) | Err(v) => v,
        }
    };
    (Exchange, $a:ident, $tid:ident, $i:ident, $t:ty, $o:ident) => {
        $a.swap(($tid as $t).wrapping_add($i as $t), $o)
    };
}

/// Stamps one kernel per row: `name: type, scope, op, words, order;`, where `words` is
/// `contended` or `distinct` (see [`word`]). Every thread applies `op` `iters` times with
/// `order` and stores the sum of what it read; the name spells the row as the C++ kernel in
/// bench/cpp/atomic_kernels.inc does.
macro_rules! atomic_kernels {
    ($($name:ident: $t:ty, $S:ident, $op:ident, $words:ident, $o:ident;)*) => {$(
        #[no_mangle]
        #[allow(unused_variables)] // `i` is used by Exchange only
        pub unsafe extern "ptx-kernel" fn $name(words: *mut $t, out: *mut $t, iters: i32) {
            let tid = global_id();
            let a = Atomic::<$t, $S>::from_ptr(word::<$t, $S>(words, contended!($words)));
            let mut sum: $t = 0;
            for i in 0..iters {
                sum = sum.wrapping_add(op!($op, a, tid, i, $t, $o));
            }
            *out.add(tid) = sum;
        }
    )*};
}

/// A row's `words` as [`word`]'s `contended` flag.
macro_rules! contended {
    (contended) => {
        true
    };
    (distinct) => {
        false
    };
}

atomic_kernels! {
    atomic__fetch_add__contended__cta__relaxed__u32: u32, Cta, FetchAdd, contended, Relaxed;
    atomic__fetch_add__contended__cta__relaxed__u64: u64, Cta, FetchAdd, contended, Relaxed;
    atomic__fetch_add__contended__cta__acq_rel__u32: u32, Cta, FetchAdd, contended, AcqRel;
    atomic__fetch_add__contended__cta__acq_rel__u64: u64, Cta, FetchAdd, contended, AcqRel;
    atomic__fetch_add__contended__gpu__relaxed__u32: u32, Gpu, FetchAdd, contended, Relaxed;
    atomic__fetch_add__contended__gpu__relaxed__u64: u64, Gpu, FetchAdd, contended, Relaxed;
    atomic__fetch_add__contended__gpu__acq_rel__u32: u32, Gpu, FetchAdd, contended, AcqRel;
    atomic__fetch_add__contended__gpu__acq_rel__u64: u64, Gpu, FetchAdd, contended, AcqRel;
    atomic__fetch_add__distinct__cta__relaxed__u32:  u32, Cta, FetchAdd, distinct, Relaxed;
    atomic__fetch_add__distinct__cta__relaxed__u64:  u64, Cta, FetchAdd, distinct, Relaxed;
    atomic__fetch_add__distinct__cta__acq_rel__u32:  u32, Cta, FetchAdd, distinct, AcqRel;
    atomic__fetch_add__distinct__cta__acq_rel__u64:  u64, Cta, FetchAdd, distinct, AcqRel;
    atomic__fetch_add__distinct__gpu__relaxed__u32:  u32, Gpu, FetchAdd, distinct, Relaxed;
    atomic__fetch_add__distinct__gpu__relaxed__u64:  u64, Gpu, FetchAdd, distinct, Relaxed;
    atomic__fetch_add__distinct__gpu__acq_rel__u32:  u32, Gpu, FetchAdd, distinct, AcqRel;
    atomic__fetch_add__distinct__gpu__acq_rel__u64:  u64, Gpu, FetchAdd, distinct, AcqRel;
    atomic__cas_loop__contended__cta__relaxed__u32:  u32, Cta, CasLoop, contended, Relaxed;
    atomic__cas_loop__contended__cta__relaxed__u64:  u64, Cta, CasLoop, contended, Relaxed;
    atomic__cas_loop__contended__cta__acq_rel__u32:  u32, Cta, CasLoop, contended, AcqRel;
    atomic__cas_loop__contended__cta__acq_rel__u64:  u64, Cta, CasLoop, contended, AcqRel;
    atomic__cas_loop__contended__gpu__relaxed__u32:  u32, Gpu, CasLoop, contended, Relaxed;
    atomic__cas_loop__contended__gpu__relaxed__u64:  u64, Gpu, CasLoop, contended, Relaxed;
    atomic__cas_loop__contended__gpu__acq_rel__u32:  u32, Gpu, CasLoop, contended, AcqRel;
    atomic__cas_loop__contended__gpu__acq_rel__u64:  u64, Gpu, CasLoop, contended, AcqRel;
    atomic__cas_loop__distinct__cta__relaxed__u32:   u32, Cta, CasLoop, distinct, Relaxed;
    atomic__cas_loop__distinct__cta__relaxed__u64:   u64, Cta, CasLoop, distinct, Relaxed;
    atomic__cas_loop__distinct__cta__acq_rel__u32:   u32, Cta, CasLoop, distinct, AcqRel;
    atomic__cas_loop__distinct__cta__acq_rel__u64:   u64, Cta, CasLoop, distinct, AcqRel;
    atomic__cas_loop__distinct__gpu__relaxed__u32:   u32, Gpu, CasLoop, distinct, Relaxed;
    atomic__cas_loop__distinct__gpu__relaxed__u64:   u64, Gpu, CasLoop, distinct, Relaxed;
    atomic__cas_loop__distinct__gpu__acq_rel__u32:   u32, Gpu, CasLoop, distinct, AcqRel;
    atomic__cas_loop__distinct__gpu__acq_rel__u64:   u64, Gpu, CasLoop, distinct, AcqRel;
    atomic__exchange__contended__cta__relaxed__u32:  u32, Cta, Exchange, contended, Relaxed;
    atomic__exchange__contended__cta__relaxed__u64:  u64, Cta, Exchange, contended, Relaxed;
    atomic__exchange__contended__cta__acq_rel__u32:  u32, Cta, Exchange, contended, AcqRel;
    atomic__exchange__contended__cta__acq_rel__u64:  u64, Cta, Exchange, contended, AcqRel;
    atomic__exchange__contended__gpu__relaxed__u32:  u32, Gpu, Exchange, contended, Relaxed;
    atomic__exchange__contended__gpu__relaxed__u64:  u64, Gpu, Exchange, contended, Relaxed;
    atomic__exchange__contended__gpu__acq_rel__u32:  u32, Gpu, Exchange, contended, AcqRel;
    atomic__exchange__contended__gpu__acq_rel__u64:  u64, Gpu, Exchange, contended, AcqRel;
    atomic__exchange__distinct__cta__relaxed__u32:   u32, Cta, Exchange, distinct, Relaxed;
    atomic__exchange__distinct__cta__relaxed__u64:   u64, Cta, Exchange, distinct, Relaxed;
    atomic__exchange__distinct__cta__acq_rel__u32:   u32, Cta, Exchange, distinct, AcqRel;
    atomic__exchange__distinct__cta__acq_rel__u64:   u64, Cta, Exchange, distinct, AcqRel;
    atomic__exchange__distinct__gpu__relaxed__u32:   u32, Gpu, Exchange, distinct, Relaxed;
    atomic__exchange__distinct__gpu__relaxed__u64:   u64, Gpu, Exchange, distinct, Relaxed;
    atomic__exchange__distinct__gpu__acq_rel__u32:   u32, Gpu, Exchange, distinct, AcqRel;
    atomic__exchange__distinct__gpu__acq_rel__u64:   u64, Gpu, Exchange, distinct, AcqRel;
    // 8- and 16-bit RMWs have no PTX instruction: both sides loop a 32-bit CAS on the word
    // that holds them.
    atomic__fetch_add__contended__gpu__relaxed__u8:  u8,  Gpu, FetchAdd, contended, Relaxed;
    atomic__fetch_add__contended__gpu__relaxed__u16: u16, Gpu, FetchAdd, contended, Relaxed;
}

/// `atomic/cas_loop_global/contended/cta/relaxed/u64`: the u64 CAS-loop row through
/// `Global<Atomic<u64, Cta>>` (`atom.global.cas`: no generic-address fallback path in the SASS).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic__cas_loop_global__contended__cta__relaxed__u64(
    words: *mut u64,
    out: *mut u64,
    iters: i32,
) {
    let a =
        ptx_sync::Global::<Atomic<u64, Cta>>::from_generic(word::<u64, Cta>(words, true).cast());
    let mut sum = 0u64;
    for _ in 0..iters {
        let mut v = a.load(Relaxed);
        while let Err(now) = a.compare_exchange_weak(v, v.wrapping_add(1), Relaxed, Relaxed) {
            v = now;
        }
        sum = sum.wrapping_add(v);
    }
    *out.add(global_id()) = sum;
}

/// `atomic/cas_loop_not_unrolled/contended/cta/relaxed/u64`: the u64 CAS-loop row with the trip
/// count read through a volatile load each iteration, so LLVM cannot unroll the outer loop.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic__cas_loop_not_unrolled__contended__cta__relaxed__u64(
    words: *mut u64,
    out: *mut u64,
    iters: i32,
) {
    let a = Atomic::<u64, Cta>::from_ptr(word::<u64, Cta>(words, true));
    let mut sum = 0u64;
    let mut i = 0;
    while i < core::ptr::read_volatile(&iters) {
        sum = sum.wrapping_add(op!(CasLoop, a, tid, i, u64, Relaxed));
        i += 1;
    }
    *out.add(global_id()) = sum;
}

/// `atomic/cas_loop/contended/gpu/relaxed/u128`: the grid increments one 128-bit word with a
/// compare-exchange loop (`atom.cas.b128`, sm_90).
#[cfg(target_feature = "sm_90")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic__cas_loop__contended__gpu__relaxed__u128(
    words: *mut u128,
    out: *mut u128,
    iters: i32,
) {
    let a = Atomic::<u128, Gpu>::from_ptr(words);
    let mut sum = 0u128;
    for _ in 0..iters {
        let mut v = a.load(Relaxed);
        loop {
            match a.compare_exchange(v, v.wrapping_add(1), Relaxed, Relaxed) {
                Ok(_) => break,
                Err(now) => v = now,
            }
        }
        sum = sum.wrapping_add(v);
    }
    *out.add(global_id()) = sum;
}

macro_rules! float_kernel {
    ($name:ident, $contended:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(words: *mut f32, out: *mut f32, iters: i32) {
            let a = Atomic::<f32, Gpu>::from_ptr(if $contended {
                words
            } else {
                words.add(global_id())
            });
            let mut sum = 0.0f32;
            for _ in 0..iters {
                sum += a.fetch_add(1.0, Relaxed);
            }
            *out.add(global_id()) = sum;
        }
    };
}
float_kernel!(atomic__float_add__contended__gpu__relaxed__f32, true);
float_kernel!(atomic__float_add__distinct__gpu__relaxed__f32, false);

/// `atomic/fetch_max/contended/gpu/relaxed/{f32,f64}`: every thread offers `i * n + tid` to the
/// grid's one word `iters` times (n threads), so most offers are below what faster threads
/// already stored; `out[tid]` = the sum of what its calls returned.
macro_rules! float_max_kernel {
    ($name:ident, $t:ty) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(words: *mut $t, out: *mut $t, iters: i32) {
            let a = Atomic::<$t, Gpu>::from_ptr(words);
            let tid = global_id();
            let n = (block::grid_x() * block::dim_x()) as usize;
            let mut sum: $t = 0.0;
            for i in 0..iters as usize {
                sum += a.fetch_max((i * n + tid) as $t, Relaxed);
            }
            *out.add(tid) = sum;
        }
    };
}
float_max_kernel!(atomic__fetch_max__contended__gpu__relaxed__f32, f32);
float_max_kernel!(atomic__fetch_max__contended__gpu__relaxed__f64, f64);

/// Release-store / acquire-load ping-pong between block 0 and block 1 (one thread each).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mp__pingpong__blocks(flags: *mut u32, rounds: i32) {
    let ping = Atomic::<u32, Gpu>::from_ptr(flags);
    let pong = Atomic::<u32, Gpu>::from_ptr(flags.add(32));
    for r in 1..=rounds as u32 {
        if _block_idx_x() == 0 {
            ping.store(r, Release);
            while pong.load(Acquire) != r {}
        } else {
            while ping.load(Acquire) != r {}
            pong.store(r, Release);
        }
    }
}

/// The GPU half of a host <-> GPU ping-pong at system scope on mapped host memory.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mp__pingpong__host(flags: *mut u32, rounds: i32) {
    let to_host = Atomic::<u32, Sys>::from_ptr(flags);
    let to_gpu = Atomic::<u32, Sys>::from_ptr(flags.add(32));
    for r in 1..=rounds as u32 {
        to_host.store(r, Release);
        while to_gpu.load(Acquire) != r {}
    }
}

#[inline(always)]
unsafe fn fence_body<S: Scope>(x: *mut i32, iters: i32, order: Ordering) {
    let a = Atomic::<i32, S>::from_ptr(x.add(global_id()));
    for i in 0..iters {
        a.store(i, Relaxed);
        fence::<S>(order);
    }
}

macro_rules! fence_kernel {
    ($name:ident, $S:ident, $o:ident) => {
        /// A relaxed store then a fence, in a loop. The runner checks that every thread's
        /// last store landed, which does not prove that the fence orders anything (see
        /// `fence` in bench/src/rust_cases.rs).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(x: *mut i32, iters: i32) {
            fence_body::<$S>(x, iters, $o);
        }
    };
}
fence_kernel!(fence__sc__cta, Cta, SeqCst);
fence_kernel!(fence__sc__gpu, Gpu, SeqCst);
fence_kernel!(fence__sc__sys, Sys, SeqCst);
fence_kernel!(fence__acq_rel__cta, Cta, AcqRel);
fence_kernel!(fence__acq_rel__gpu, Gpu, AcqRel);
fence_kernel!(fence__acq_rel__sys, Sys, AcqRel);

/// Every thread takes the lock `iters` times around `counter += 1` (bench case `mutex/*`).
/// The counter is on the line after the lock word's (`CachePadded`), as the C++ keeps its
/// counter apart from its semaphore.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn mutex__counter(m: *mut Mutex<CachePadded<u32>, Gpu>, iters: i32) {
    let m = Mutex::from_ptr(m);
    for _ in 0..iters {
        **m.lock() += 1;
    }
}

/// `hash_table/*`: every thread inserts `iters` keys into a table of 65,536 buckets with a
/// compact `Mutex<Bucket, Gpu>` each (64 bytes); the lanes of a warp lock different buckets.
/// Keys, buckets and the critical section: bench/src/table.rs, as reference.cu's `k_table`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn hash_table__insert(
    table: *mut Mutex<table::Bucket, Gpu>,
    iters: i32,
) {
    let tid = global_id() as u32;
    for i in 0..iters as u32 {
        let key = table::key(tid * iters as u32 + i);
        Mutex::from_ptr(table.add(table::bucket(key)))
            .lock()
            .insert(key);
    }
}

// ---------------------------------------------------------------------------------------------
// Cases 5-8: the primitives, each with the shape, work and check of its C++ counterpart.

/// `semaphore{4,32}/*`: holders count themselves in and out under the semaphore.
#[inline(always)]
unsafe fn semaphore_body<const MAX: u32>(s: *mut u32, stats: *mut u32, iters: i32) {
    let s = Semaphore::<Gpu, MAX>::from_ptr(s);
    let holders = Atomic::<u32, Gpu>::from_ptr(stats);
    let most = Atomic::<u32, Gpu>::from_ptr(stats.add(32));
    let passes = Atomic::<u32, Gpu>::from_ptr(stats.add(64));
    for _ in 0..iters {
        s.acquire();
        let h = holders.fetch_add(1, Relaxed) + 1;
        most.fetch_max(h, Relaxed);
        passes.fetch_add(1, Relaxed);
        holders.fetch_sub(1, Relaxed);
        s.release(1);
    }
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn semaphore4__holders(s: *mut u32, stats: *mut u32, iters: i32) {
    semaphore_body::<4>(s, stats, iters)
}

#[no_mangle]
pub unsafe extern "ptx-kernel" fn semaphore32__holders(s: *mut u32, stats: *mut u32, iters: i32) {
    semaphore_body::<32>(s, stats, iters)
}

/// The waiting policy of the latch and `Barrier<Gpu>` rows: their waits last about one L2
/// round trip, so short sleeps beat the default `NanoSleep<32, 1024>` (which sleeps too long
/// once the phase has completed), `Spin` and `Elapsed` (back-to-back `ld.acquire` polls crowd
/// the line the arrivals must reach). The measurements: bench/NOTES.md.
type ShortSleep = NanoSleep<8, 128>;

/// `latch/132x128`: per round, thread 0 of every block counts down a fresh latch and waits.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn latch__fan_in(
    latches: *mut u32,
    arrived: *mut u32,
    rounds: i32,
    errors: *mut u32,
) {
    let count = Atomic::<u32, Gpu>::from_ptr(arrived);
    let err = Atomic::<u32, Gpu>::from_ptr(errors);
    for r in 0..rounds as u32 {
        block::sync_aligned();
        if block::thread_x() == 0 {
            count.fetch_add(1, Relaxed);
            Latch::<Gpu, ShortSleep>::from_ptr(latches.add(r as usize)).arrive_and_wait();
            if count.load(Relaxed) < (r + 1) * block::grid_x() {
                err.fetch_add(1, Relaxed);
            }
        }
        block::sync_aligned();
    }
}

/// Dynamic shared memory of the block-barrier kernels: the barrier (16 bytes reserved), then
/// the double-buffered exchange `buf[2][blockDim]`.
const BB_BUF: usize = 16;

#[inline(always)]
unsafe fn bb_slot(phase: i32, t: u32) -> Shared<i32> {
    // `.shared` addresses: `ld/st.shared`, as nvcc emits for the C++'s `__shared__` array.
    let buf = Shared::dynamic().add(BB_BUF).cast::<i32>();
    buf.add((phase & 1) as usize * block::dim_x() as usize + t as usize)
}

/// This thread's right-hand neighbour in the block. Computed once per kernel, as nvcc hoists
/// the C++'s loop-invariant `(threadIdx.x + 1) % blockDim.x` (rustc keeps the division, and
/// its zero check, inside the loop).
#[inline(always)]
fn bb_right() -> u32 {
    (block::thread_x() + 1) % block::dim_x()
}

/// One phase's neighbour check: 1 if the neighbour's slot is not this phase's.
#[inline(always)]
unsafe fn bb_stale(phase: i32, right: u32) -> u32 {
    (bb_slot(phase, right).read() != phase) as u32
}

#[inline(always)]
unsafe fn bb_report(errors: *mut u32, err: u32) {
    if err != 0 {
        Atomic::<u32, Gpu>::from_ptr(errors).fetch_add(err, Relaxed);
    }
}

/// The block-barrier rows' loop: `$iters` phases of writing this thread's slot, `$sync`, and
/// checking the right-hand neighbour's; the stale reads go to `$errors`. A macro: a function
/// taking `$sync` as a closure gave the same code with its registers renumbered.
macro_rules! bb_exchange {
    ($iters:expr, $errors:expr, $sync:expr) => {
        let (mut err, right) = (0, bb_right());
        for i in 0..$iters {
            bb_slot(i, block::thread_x()).write(i);
            $sync;
            err += bb_stale(i, right);
        }
        bb_report($errors, err);
    };
}

/// The block's barrier of type `$ty` at the start of dynamic shared memory, initialized by
/// thread 0 for the whole block (the block syncs before it is used).
macro_rules! block_barrier_in_smem {
    ($ty:ty) => {{
        let bar = <$ty>::from_ptr(block::dynamic_shared_memory().cast());
        if block::thread_x() == 0 {
            bar.init(block::dim_x());
        }
        block::sync_aligned();
        bar
    }};
}

/// `block_barrier/syncthreads`: `block::sync_aligned()` (`bar.sync 0`, as `__syncthreads()`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn block_barrier__syncthreads(iters: i32, errors: *mut u32) {
    bb_exchange!(iters, errors, block::sync_aligned());
}

/// `block_barrier/cuda_barrier`: `BlockBarrier` (mbarrier) in shared memory.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn block_barrier__cuda_barrier(iters: i32, errors: *mut u32) {
    let bar = block_barrier_in_smem!(BlockBarrier);
    bb_exchange!(iters, errors, bar.arrive_and_wait());
}

/// `block_barrier/split_arrive_wait`: `arrive`, 16 steps of independent work, `wait`.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn block_barrier__split_arrive_wait(
    iters: i32,
    errors: *mut u32,
    sink: *mut f32,
) {
    let bar = block_barrier_in_smem!(BlockBarrier);
    let (mut err, right) = (0, bb_right());
    let mut acc = block::thread_x() as f32;
    for i in 0..iters {
        bb_slot(i, block::thread_x()).write(i);
        let token = bar.arrive();
        // nvcc contracts the C++'s `acc * 0.999f + 1.0f` into one FFMA; rustc never contracts,
        // so the same work is an explicit fused multiply-add.
        for _ in 0..16 {
            acc = core::f32::math::mul_add(acc, 0.999, 1.0);
        }
        bar.wait(token);
        err += bb_stale(i, right);
    }
    bb_report(errors, err);
    if acc == -1.0 {
        *sink = acc;
    }
}

/// `block_barrier/generic` (Rust only): the portable `Barrier<Cta>` in shared memory, polling
/// without sleeping: a block-local wait is short, so a sleep only adds to it (measured:
/// bench/NOTES.md).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn block_barrier__generic(iters: i32, errors: *mut u32) {
    let bar = block_barrier_in_smem!(Barrier<Cta, Spin>);
    bb_exchange!(iters, errors, bar.arrive_and_wait());
}

/// The grid-barrier rows' loop: `$rounds` rounds in which thread 0 of each block writes its
/// slot of `$slots` (double-buffered), the grid meets at `$sync`, and thread 0 reads its
/// right-hand neighbour's; stale reads go to `$errors`. A macro, as [`bb_exchange!`].
macro_rules! grid_exchange {
    ($slots:expr, $rounds:expr, $errors:expr, $sync:block) => {
        let (b, nb) = (block::index_x() as usize, block::grid_x() as usize);
        let right = (b + 1) % nb;
        let mut err = 0;
        for r in 0..$rounds {
            let row = $slots.add((r & 1) as usize * nb);
            if block::thread_x() == 0 {
                volatile::write_volatile(row.add(b), r);
            }
            $sync
            if block::thread_x() == 0 {
                err += (volatile::read_volatile(row.add(right)) != r) as u32;
            }
        }
        bb_report($errors, err);
    };
}

/// `grid_barrier/grid_sync/*`: thread 0 writes its slot, the whole grid syncs, thread 0 reads
/// its neighbour's (double-buffered), as the C++ does around `grid.sync()`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn grid_barrier__grid_sync(
    bar: *mut u32,
    slots: *mut i32,
    rounds: i32,
    errors: *mut u32,
) {
    let bar = GridBarrier::<Spin>::from_ptr(bar);
    grid_exchange!(slots, rounds, errors, {
        bar.sync_aligned();
    });
}

/// `grid_barrier/cuda_barrier/*`: `Barrier<Gpu>` (one u64 in global memory), thread 0 of
/// each block arriving between two block barriers, as the C++ does with
/// `cuda::barrier<thread_scope_device>`. Waits with [`ShortSleep`].
#[no_mangle]
pub unsafe extern "ptx-kernel" fn grid_barrier__cuda_barrier(
    bar: *mut u64,
    slots: *mut i32,
    rounds: i32,
    errors: *mut u32,
) {
    let bar = Barrier::<Gpu, ShortSleep>::from_ptr(bar);
    grid_exchange!(slots, rounds, errors, {
        block::sync_aligned();
        if block::thread_x() == 0 {
            bar.arrive_and_wait();
        }
        block::sync_aligned();
    });
}
