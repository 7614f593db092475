//! Kernels of the contention and forgotten-guard misuse cases (tests/src/cases/misuse_storms.rs).

use ptx_sync::{Atomic, Gpu, Mutex, Ordering, Semaphore};

/// Every thread calls `try_lock` on the mutex at `m` `iters` times. Each success adds 1 to the
/// guarded plain counter (a non-atomic read-modify-write: only mutual exclusion keeps it
/// exact) and to `*successes` (atomic). The host checks counter == successes.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_try_lock_storm(
    m: *mut Mutex<u32, Gpu>,
    successes: *mut u32,
    iters: u32,
) {
    let m = Mutex::from_ptr(m);
    let won = Atomic::<u32, Gpu>::from_ptr(successes);
    let mut mine = 0u32;
    for _ in 0..iters {
        if let Some(mut g) = m.try_lock() {
            *g += 1;
            mine += 1;
        }
    }
    won.fetch_add(mine, Ordering::Relaxed);
}

/// Every thread calls `try_acquire` on `Semaphore<Gpu, 1>` at `sem` (initialised to 1 by the
/// host) `iters` times; each success adds 1 to the plain `*counter` (only the semaphore's
/// exclusion keeps it exact) and releases. `*successes` counts the successes (atomic).
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_try_acquire_storm(
    sem: *mut u32,
    counter: *mut u32,
    successes: *mut u32,
    iters: u32,
) {
    let sem = Semaphore::<Gpu, 1>::from_ptr(sem);
    let won = Atomic::<u32, Gpu>::from_ptr(successes);
    let mut mine = 0u32;
    for _ in 0..iters {
        if sem.try_acquire() {
            // Volatile: the compiler must not merge the increments of consecutive successes
            // across the release, which would hide a broken exclusion.
            let c = core::ptr::read_volatile(counter);
            core::ptr::write_volatile(counter, c + 1);
            mine += 1;
            sem.release(1);
        }
    }
    won.fetch_add(mine, Ordering::Relaxed);
}

/// Takes the mutex at `m` and forgets the guard: the lock is never released. `*done = 1`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_forget_guard(m: *mut Mutex<u32, Gpu>, done: *mut u32) {
    let m = Mutex::from_ptr(m);
    core::mem::forget(m.lock());
    *done = 1;
}

/// `*out = 1` if `try_lock` on the mutex at `m` succeeds (the guard is dropped at once), else 2.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_try_lock_once(m: *mut Mutex<u32, Gpu>, out: *mut u32) {
    let m = Mutex::from_ptr(m);
    *out = match m.try_lock() {
        Some(_) => 1,
        None => 2,
    };
}

/// `lock()` on the mutex at `m` (no time limit), then `*out = 1`: never returns where a guard
/// was forgotten.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn misuse_lock_once(m: *mut Mutex<u32, Gpu>, out: *mut u32) {
    let m = Mutex::from_ptr(m);
    drop(m.lock());
    *out = 1;
}
