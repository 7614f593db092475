//! `shared!` variables and the state-space atomics (tests/src/cases/shared_static.rs): shared
//! statics that must not overlap, a `BlockBarrier` and a `Mutex<_, Cta>` declared as shared
//! statics, the `.shared::cta`, `.global` and `.shared::cluster` atomics against the generic
//! ones on the same workload, and the debug checks of `from_generic`.

use ptx_sync::shared::Shared;
use ptx_sync::{block, shared, Atomic, Cta, Global, Gpu, Ordering::*};

/// The values thread `t` of block `b` writes to `A` and `B`.
fn key_a(b: u32, t: u32) -> u32 {
    b.wrapping_mul(0x9E37_79B9) ^ t
}
fn key_b(b: u32, t: u32) -> u32 {
    !(b.wrapping_mul(0x85EB_CA6B) ^ (t << 8))
}

/// Three shared statics of one kernel (two `[u32; 256]`, one `[u64; 32]`): every thread writes
/// its element of each (`A` through `ld/st.shared`, `B` through the generic pointer, `W` as
/// `u64`), `block::sync()`, then reads other threads' elements of all three. Overlapping
/// variables would leave one of two writes in the shared bytes, and its reader would count a
/// mismatch. `out[0]`: mismatches over the grid; block 0's thread 0 writes the `.shared`
/// addresses of `A`, `B`, `W` and of the dynamic shared memory to `out[1..5]`. 256 threads.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn shared_static_disjoint(out: *mut u32) {
    shared! {
        static A: [u32; 256];
        static B: [u32; 256];
        static W: [u64; 32];
    }
    let (t, n, b) = (block::thread_x(), block::dim_x(), block::index_x());
    A.shared().at(t as usize).write(key_a(b, t));
    *B.as_ptr().cast::<u32>().add(t as usize) = key_b(b, t);
    if t < 32 {
        W.shared()
            .at(t as usize)
            .write((b as u64) << 32 | (t as u64) << 8 | 0xA5);
    }
    block::sync();
    let (r, q, w) = ((t + 1) % n, (t + 3) % n, (t + 5) % 32);
    let mut bad = 0u32;
    bad += (*A.as_ptr().cast::<u32>().add(r as usize) != key_a(b, r)) as u32;
    bad += (B.shared().at(q as usize).read() != key_b(b, q)) as u32;
    bad += (W.shared().at(w as usize).read() != ((b as u64) << 32 | (w as u64) << 8 | 0xA5)) as u32;
    Atomic::<u32, Gpu>::from_ptr(out).fetch_add(bad, Relaxed);
    if b == 0 && t == 0 {
        *out.add(1) = A.shared().address();
        *out.add(2) = B.shared().address();
        *out.add(3) = W.shared().address();
        *out.add(4) = Shared::dynamic().address();
    }
}

/// A `BlockBarrier`, a `Mutex<u32, Cta>` and an `Atomic<u32, Cta>` declared with `shared!`:
/// thread 0 initializes them, `block::sync()`, then every thread of the block runs `iters`
/// phases: lock and increment (a plain read-modify-write under the lock), barrier, read the
/// count under the lock (all `(phase + 1) * n` increments must be there: the unlocks release,
/// the barrier's arrive releases and its wait acquires), thread 0 counts the phase, barrier.
/// `out[block * 3 ..]`: the final count, stale reads, phases. sm_80 (`mbarrier`).
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn shared_static_barrier_mutex(iters: u32, out: *mut u32) {
    use ptx_sync::{BlockBarrier, Mutex};
    shared! {
        static BAR: BlockBarrier;
        static LOCK: Mutex<u32, Cta>;
        static PHASES: Atomic<u32, Cta>;
    }
    let (t, n) = (block::thread_rank(), block::dim_x());
    if t == 0 {
        BAR.get().init(n);
        LOCK.as_ptr().write(Mutex::new(0));
        PHASES.get().store(0, Relaxed);
    }
    block::sync();
    let (bar, lock, phases) = (BAR.get(), LOCK.get(), PHASES.get());
    let mut stale = 0u32;
    for i in 0..iters {
        {
            let mut g = lock.lock();
            let v = *g;
            *g = v + 1;
        }
        bar.arrive_and_wait();
        let seen = *lock.lock();
        stale += (seen != (i + 1) * n) as u32;
        if t == 0 {
            phases.fetch_add(1, Relaxed);
        }
        bar.arrive_and_wait();
    }
    let o = out.add(block::index_x() as usize * 3);
    Atomic::<u32, Gpu>::from_ptr(o.add(1)).fetch_add(stale, Relaxed);
    if t == 0 {
        *o = *lock.lock();
        *o.add(2) = phases.load(Relaxed);
    }
}

/// The slots of `shared_static_space_totals` (the host's table in the case file follows it).
/// Each slot is one 8-byte word holding the `Atomic` of the type named.
mod slot {
    pub const ADD_V: usize = 0; // u32 fetch_add(v)
    pub const COUNT: usize = 1; // u32 fetch_add(1), returns summed
    pub const ADD64: usize = 2; // u64 fetch_add(v << 20)
    pub const MAX: usize = 3; // i32 fetch_max(v)
    pub const MIN: usize = 4; // i64 fetch_min(-v)
    pub const XOR: usize = 5; // u32 fetch_xor(v)
    pub const OR: usize = 6; // u64 fetch_or(1 << v % 64)
    pub const AND: usize = 7; // u32 fetch_and(!(1 << v % 32)), starts at u32::MAX
    pub const CAS: usize = 8; // u64 compare_exchange loop, +1
    pub const FADD: usize = 9; // f32 fetch_add(1.0)
    pub const SWAP: usize = 10; // u32 swap(v), returns summed
    pub const SUB: usize = 11; // i32 fetch_sub(v)
    pub const RED: usize = 12; // u32 red_add(v)
    pub const FSUB: usize = 13; // f64 fetch_sub(0.5)
    pub const SLOTS: usize = 16;
}

/// One thread's `iters` operations on every slot of one set of atomics, addressed by
/// `$at!(slot, type)` (a generic `&Atomic` or a state-space handle: the same method names).
/// Returns (sum of `COUNT`'s returned values, sum of `SWAP`'s returned values).
macro_rules! space_workload {
    ($at:ident, $v0:expr, $iters:expr) => {{
        let (mut counted, mut swapped) = (0u64, 0u64);
        for i in 0..$iters {
            let v: u32 = $v0 + i + 1;
            $at!(slot::ADD_V, u32).fetch_add(v, Relaxed);
            counted += $at!(slot::COUNT, u32).fetch_add(1, AcqRel) as u64;
            $at!(slot::ADD64, u64).fetch_add((v as u64) << 20, Release);
            $at!(slot::MAX, i32).fetch_max(v as i32, Acquire);
            $at!(slot::MIN, i64).fetch_min(-(v as i64), SeqCst);
            $at!(slot::XOR, u32).fetch_xor(v, Relaxed);
            $at!(slot::OR, u64).fetch_or(1u64 << (v % 64), Relaxed);
            $at!(slot::AND, u32).fetch_and(!(1u32 << (v % 32)), AcqRel);
            let c = $at!(slot::CAS, u64);
            let mut cur = c.load(Relaxed);
            loop {
                match c.compare_exchange(cur, cur + 1, AcqRel, Relaxed) {
                    Ok(_) => break,
                    Err(actual) => cur = actual,
                }
            }
            $at!(slot::FADD, f32).fetch_add(1.0, Relaxed);
            swapped += $at!(slot::SWAP, u32).swap(v, AcqRel) as u64;
            $at!(slot::SUB, i32).fetch_sub(v as i32, Relaxed);
            $at!(slot::RED, u32).red_add(v, Release);
            $at!(slot::FSUB, f64).fetch_sub(0.5, SeqCst);
        }
        (counted, swapped)
    }};
}

/// The same workload on four sets of atomics: in shared memory through generic `Atomic<_,
/// Cta>`s (`GEN`) and through `Shared` handles (`EXP`, `.shared::cta`), per block; in global
/// memory through generic `Atomic<_, Gpu>`s (`global[0..16]`) and through `Global` handles
/// (`global[16..32]`, `.global`), over the whole grid. Thread `t` of block `b` uses the values
/// `v = (b * n + t) * iters + 1 ..= +iters`. Thread 0 initializes the shared words (0, `AND`
/// u32::MAX), `block::sync()`, everyone runs, `block::sync()`, thread 0 loads the shared slots
/// (`load(Acquire)` of each form) into `out[b * 32 ..]` (generic, then explicit). `sums`:
/// [0] generic shared COUNT returns, [1] explicit, [2] generic global, [3] explicit; [4..8]
/// the same for SWAP. The host initializes `global` (0, `AND` u32::MAX).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn shared_static_space_totals(
    iters: u32,
    out: *mut u64,
    global: *mut u64,
    sums: *mut u64,
) {
    shared! {
        static GEN: [u64; slot::SLOTS];
        static EXP: [u64; slot::SLOTS];
    }
    let (t, n, b) = (block::thread_x(), block::dim_x(), block::index_x());
    if t == 0 {
        for k in 0..slot::SLOTS {
            let init = if k == slot::AND { u32::MAX as u64 } else { 0 };
            GEN.shared().at(k).write(init);
            EXP.shared().at(k).write(init);
        }
    }
    block::sync();
    let v0 = (b * n + t) * iters;
    macro_rules! gen_shared {
        ($k:expr, $t:ty) => {
            Atomic::<$t, Cta>::from_ptr(GEN.as_ptr().cast::<u64>().add($k).cast::<$t>())
        };
    }
    macro_rules! exp_shared {
        ($k:expr, $t:ty) => {
            EXP.shared().at($k).cast::<Atomic<$t, Cta>>()
        };
    }
    macro_rules! gen_global {
        ($k:expr, $t:ty) => {
            Atomic::<$t, Gpu>::from_ptr(global.add($k).cast::<$t>())
        };
    }
    let exp_base = Global::<u64>::from_generic(global.add(slot::SLOTS));
    macro_rules! exp_global {
        ($k:expr, $t:ty) => {
            exp_base.add($k).cast::<Atomic<$t, Gpu>>()
        };
    }
    let results = [
        space_workload!(gen_shared, v0, iters),
        space_workload!(exp_shared, v0, iters),
        space_workload!(gen_global, v0, iters),
        space_workload!(exp_global, v0, iters),
    ];
    for (j, (counted, swapped)) in results.iter().enumerate() {
        Atomic::<u64, Gpu>::from_ptr(sums.add(j)).fetch_add(*counted, Relaxed);
        Atomic::<u64, Gpu>::from_ptr(sums.add(4 + j)).fetch_add(*swapped, Relaxed);
    }
    block::sync();
    if t == 0 {
        let o = out.add(b as usize * 2 * slot::SLOTS);
        for k in 0..slot::SLOTS {
            *o.add(k) = gen_shared!(k, u64).load(Acquire);
            *o.add(slot::SLOTS + k) = exp_shared!(k, u64).load(Acquire);
        }
    }
}

/// `.shared::cluster` against the generic form (sm_90, cluster launch): every thread of every
/// block of a cluster adds 1, `iters` times, to two counters in block 0's `shared!` array,
/// one through `Shared::map(0)` (`atom.relaxed.cluster.shared::cluster.add.u32`) and one
/// through `cluster::map_shared` + `Atomic<u32, Cluster>` (generic), and 2 to a `u64` one
/// through the handle. `cluster::sync()` before (every block zeroed its copy) and after
/// (block 0 stays until all have added). `out[cluster * 6 ..]`: the three final counts, and
/// the sums of the values the two `u32` adds returned (generic, then handle); [5] unused.
#[cfg(target_feature = "sm_90")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn shared_static_cluster_totals(iters: u32, out: *mut u64) {
    use ptx_sync::{cluster, Cluster};
    shared! { static CNT: [u64; 4]; }
    let t = block::thread_x();
    if t == 0 {
        for k in 0..4 {
            CNT.shared().at(k).write(0);
        }
    }
    cluster::sync();
    let handle = CNT.shared().at(0).cast::<Atomic<u32, Cluster>>().map(0);
    let wide = CNT.shared().at(2).cast::<Atomic<u64, Cluster>>().map(0);
    let generic = Atomic::<u32, Cluster>::from_ptr(cluster::map_shared(
        CNT.as_ptr().cast::<u64>().add(1).cast::<u32>(),
        0,
    ));
    let (mut from_generic, mut from_handle) = (0u64, 0u64);
    for _ in 0..iters {
        from_generic += generic.fetch_add(1, Relaxed) as u64;
        from_handle += handle.fetch_add(1, Relaxed) as u64;
        wide.fetch_add(2, AcqRel);
    }
    let o = out.add(cluster::index_x() as usize * 6);
    Atomic::<u64, Gpu>::from_ptr(o.add(3)).fetch_add(from_generic, Relaxed);
    Atomic::<u64, Gpu>::from_ptr(o.add(4)).fetch_add(from_handle, Relaxed);
    cluster::sync();
    if cluster::block_rank() == 0 && t == 0 {
        *o = handle.load(Acquire) as u64;
        *o.add(1) = generic.load(Acquire) as u64;
        *o.add(2) = wide.load(Acquire);
    }
}

/// `extra = 1`: a `Shared` handle made from `word`, a global pointer (`isspacep.shared::cta`
/// fails: a debug build traps). `extra = 0`, the control: a `shared!` variable's handle, then
/// `word += 1` through a `Global` handle. Both set `*done = 1` at the end.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn shared_static_misuse_shared_from_global(
    word: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    shared! { static S: Atomic<u32, Cta>; }
    let h = if extra != 0 {
        Shared::<Atomic<u32, Cta>>::from_generic(word.cast())
    } else {
        S.shared()
    };
    h.store(1, Relaxed);
    let g = Global::<Atomic<u32, Gpu>>::from_generic(word.cast());
    g.fetch_add(h.load(Relaxed), Relaxed);
    *done = 1;
}

/// `extra = 1`: a `Global` handle made from a shared variable's generic pointer
/// (`isspacep.global` fails: a debug build traps). `extra = 0`, the control: the handle from
/// `word`, then `word += 1`. Both set `*done = 1` at the end.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn shared_static_misuse_global_from_shared(
    word: *mut u32,
    extra: u32,
    done: *mut u32,
) {
    shared! { static S: Atomic<u32, Cta>; }
    S.get().store(0, Relaxed);
    let p = if extra != 0 {
        S.as_ptr()
    } else {
        word.cast::<Atomic<u32, Cta>>()
    };
    let g = Global::<Atomic<u32, Cta>>::from_generic(p);
    g.fetch_add(1, Relaxed);
    *done = 1;
}
