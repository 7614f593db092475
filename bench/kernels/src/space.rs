//! The state-space rows (`space/*`): the same atomic workload through a generic address
//! (`Atomic::from_ptr`, `atom.<sem>.<scope>.<op>`) and through a state-space handle
//! (`Shared<Atomic<..>>`: `atom.<sem>.<scope>.shared::cta.<op>`; `Global<Atomic<..>>`:
//! `.global`). The CUDA C++ counterparts (bench/cpp/space.inc) have the same names: libcu++'s
//! `cuda::atomic_ref` for the generic rows (nvcc emits the generic form for it, even on a
//! `__shared__` variable) and what nvcc emits state-space instructions for (`atomicAdd` on a
//! `__shared__` or global address; inline PTX for the acquire/release spinlock) for the others.

use core::arch::nvptx::{_block_idx_x, _thread_idx_x};
use ptx_sync::{block, shared, Atomic, Cta, Global, Gpu, Ordering::*};

/// `space/shared_fetch_add/generic`: every thread adds 1 `iters` times to its block's
/// `shared!` counter through `&Atomic<u32, Cta>` (generic address); `out[tid]` = the wrapping
/// sum of the returned values, `counts[block]` = the counter at the end.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn space__shared_fetch_add__generic(
    counts: *mut u32,
    out: *mut u32,
    iters: i32,
) {
    shared! { static COUNTER: Atomic<u32, Cta>; }
    let t = _thread_idx_x();
    if t == 0 {
        COUNTER.get().store(0, Relaxed);
    }
    block::sync();
    let c = COUNTER.get();
    let mut sum = 0u32;
    for _ in 0..iters {
        sum = sum.wrapping_add(c.fetch_add(1, Relaxed)); // atom.relaxed.cta.add.u32
    }
    *out.add(super::global_id()) = sum;
    block::sync();
    if t == 0 {
        *counts.add(_block_idx_x() as usize) = c.load(Relaxed);
    }
}

/// `space/shared_fetch_add/shared`: the same through `Shared<Atomic<u32, Cta>>`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn space__shared_fetch_add__shared(
    counts: *mut u32,
    out: *mut u32,
    iters: i32,
) {
    shared! { static COUNTER: Atomic<u32, Cta>; }
    let t = _thread_idx_x();
    let c = COUNTER.shared();
    if t == 0 {
        c.store(0, Relaxed);
    }
    block::sync();
    let mut sum = 0u32;
    for _ in 0..iters {
        sum = sum.wrapping_add(c.fetch_add(1, Relaxed)); // atom.relaxed.cta.shared::cta.add.u32
    }
    *out.add(super::global_id()) = sum;
    block::sync();
    if t == 0 {
        *counts.add(_block_idx_x() as usize) = c.load(Relaxed);
    }
}

/// `space/shared_spinlock/generic`: every thread takes its block's `shared!` spinlock `iters`
/// times (`compare_exchange(0, 1, Acquire)` until it succeeds, generic address), adds 1 to a
/// plain `shared!` counter (`ld/st.shared`, as nvcc does for a `__shared__` variable: the row
/// differs from the next in the lock's addressing only), and releases (`store(0, Release)`,
/// generic). `counts[block]` = the counter at the end.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn space__shared_spinlock__generic(counts: *mut u32, iters: i32) {
    shared! {
        static LOCK: Atomic<u32, Cta>;
        static DATA: u32;
    }
    let t = _thread_idx_x();
    let (lock, data) = (LOCK.get(), DATA.shared());
    if t == 0 {
        lock.store(0, Relaxed);
        data.write(0);
    }
    block::sync();
    for _ in 0..iters {
        // atom.acquire.cta.cas.b32
        while lock.compare_exchange(0, 1, Acquire, Relaxed).is_err() {}
        data.write(data.read() + 1);
        lock.store(0, Release); // st.release.cta.b32
    }
    block::sync();
    if t == 0 {
        *counts.add(_block_idx_x() as usize) = data.read();
    }
}

/// `space/shared_spinlock/shared`: the same through `Shared` handles: the CUDA guide's
/// `atom.acquire.cta.shared::cta.cas.b32` lock, `ld/st.shared` data, `st.release.cta.shared::cta`
/// unlock.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn space__shared_spinlock__shared(counts: *mut u32, iters: i32) {
    shared! {
        static LOCK: Atomic<u32, Cta>;
        static DATA: u32;
    }
    let t = _thread_idx_x();
    let (lock, data) = (LOCK.shared(), DATA.shared());
    if t == 0 {
        lock.store(0, Relaxed);
        data.write(0);
    }
    block::sync();
    for _ in 0..iters {
        while lock.compare_exchange(0, 1, Acquire, Relaxed).is_err() {}
        data.write(data.read() + 1);
        lock.store(0, Release);
    }
    block::sync();
    if t == 0 {
        *counts.add(_block_idx_x() as usize) = data.read();
    }
}

/// `space/global_fetch_add/generic`: every thread adds 1 `iters` times to its own global word
/// through `&Atomic<u32, Gpu>`; `out[tid]` = the wrapping sum of the returned values.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn space__global_fetch_add__generic(
    words: *mut u32,
    out: *mut u32,
    iters: i32,
) {
    let i = super::global_id();
    let a = Atomic::<u32, Gpu>::from_ptr(words.add(i));
    let mut sum = 0u32;
    for _ in 0..iters {
        sum = sum.wrapping_add(a.fetch_add(1, Relaxed)); // atom.relaxed.gpu.add.u32
    }
    *out.add(i) = sum;
}

/// `space/global_fetch_add/global`: the same through `Global<Atomic<u32, Gpu>>`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn space__global_fetch_add__global(
    words: *mut u32,
    out: *mut u32,
    iters: i32,
) {
    let i = super::global_id();
    let a = Global::<Atomic<u32, Gpu>>::from_generic(words.add(i).cast());
    let mut sum = 0u32;
    for _ in 0..iters {
        sum = sum.wrapping_add(a.fetch_add(1, Relaxed)); // atom.relaxed.gpu.global.add.u32
    }
    *out.add(i) = sum;
}
