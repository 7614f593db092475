//! `shared!` variables and the state-space atomics (`Shared<Atomic<T, S>>`,
//! `Global<Atomic<T, S>>`) on the host backend: the same code the GPU runs, with threads for a
//! block. On the host a `shared!` variable is one static and a handle an ordinary pointer, so
//! these tests check the API's plumbing and the values each operation returns; the PTX of
//! each operation is checked by tests/tests/golden_ptx.rs, and the GPU behaviour by the
//! `shared_static_*` cases of the GPU suite.
// Ordinary threads over core atomics: not a loom model (loom's atomics have no `into_inner`).
#![cfg(not(loom))]

use ptx_sync::shared::Shared;
use ptx_sync::shared_static::__hash;
use ptx_sync::{shared, Atomic, Cta, Global, Gpu, Mutex, Ordering::*, Sys};
use std::thread;

const THREADS: u32 = 8;
const ITERS: u32 = 2000;

shared! {
    /// Counted by `shared_counter_counts_every_thread`.
    static COUNTER: Atomic<u32, Cta>;
    static LOCK: Mutex<u64, Cta>;
    static A: [u32; 64];
    static B: [u32; 64];
}

#[test]
fn shared_counter_counts_every_thread() {
    // SAFETY: this test's threads are the only users of COUNTER; one thread initializes it
    // before the others start (the GPU's `block::sync()`).
    unsafe { COUNTER.get() }.store(0, Relaxed);
    let seen = thread::scope(|s| {
        let handles: Vec<_> = (0..THREADS)
            .map(|_| {
                s.spawn(|| {
                    let c = COUNTER.shared();
                    (0..ITERS)
                        // SAFETY: initialized above; every access is atomic.
                        .map(|_| unsafe { c.fetch_add(1, Relaxed) } as u64)
                        .sum::<u64>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum::<u64>()
    });
    let n = (THREADS * ITERS) as u64;
    // SAFETY: as above.
    assert_eq!(unsafe { COUNTER.shared().load(Acquire) } as u64, n);
    // Every returned value 0..n exactly once.
    assert_eq!(seen, n * (n - 1) / 2);
    // The generic view is the same variable.
    assert_eq!(unsafe { COUNTER.get() }.load(Relaxed) as u64, n);
    assert_eq!(COUNTER.as_ptr(), COUNTER.shared().generic());
}

#[test]
fn shared_mutex_counts_every_critical_section() {
    // SAFETY: written whole by one thread before the others start.
    unsafe { LOCK.as_ptr().write(Mutex::new(0)) };
    thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                // SAFETY: initialized above.
                let lock = unsafe { LOCK.get() };
                for _ in 0..ITERS {
                    // A non-atomic read-modify-write: lost updates without mutual exclusion.
                    let mut g = lock.lock();
                    let v = *g;
                    std::hint::black_box(());
                    *g = v + 1;
                }
            });
        }
    });
    // SAFETY: the threads have joined.
    assert_eq!(*unsafe { LOCK.get() }.lock(), (THREADS * ITERS) as u64);
}

#[test]
fn two_shared_variables_do_not_overlap() {
    let (a, b) = (A.shared(), B.shared());
    for i in 0..64 {
        // SAFETY: this test is their only user.
        unsafe {
            a.at(i).write(i as u32);
            b.at(i).write(1000 + i as u32);
        }
    }
    for i in 0..64 {
        // SAFETY: as above.
        unsafe {
            assert_eq!(a.at(i).read(), i as u32);
            assert_eq!(b.at(i).read(), 1000 + i as u32);
        }
    }
    let (pa, pb) = (A.as_ptr() as usize, B.as_ptr() as usize);
    assert!(pa + 256 <= pb || pb + 256 <= pa, "A and B overlap");
}

#[test]
#[should_panic(expected = "Shared::at: index out of bounds")]
fn at_checks_the_index_in_debug_builds() {
    let _ = A.shared().at(64);
}

#[test]
fn shared_variables_in_functions_and_modules_are_distinct() {
    mod one {
        ptx_sync::shared! { pub static X: u64; }
    }
    mod two {
        ptx_sync::shared! { pub static X: u64; }
    }
    fn local() -> *mut u64 {
        // A type only nameable inside this function.
        type Word = u64;
        shared! { static X: Word; }
        X.as_ptr()
    }
    let ptrs = [one::X.as_ptr(), two::X.as_ptr(), local()];
    assert!(ptrs[0] != ptrs[1] && ptrs[1] != ptrs[2] && ptrs[0] != ptrs[2]);
    // The PTX names: the hash over module path, file, line and column.
    assert_ne!(__hash("k::one::X@f.rs:1:1"), __hash("k::two::X@f.rs:1:1"));
    assert_ne!(__hash("k::X@f.rs:1:1"), __hash("k::X@f.rs:2:1"));
    assert_eq!(__hash(""), 0xcbf2_9ce4_8422_2325); // FNV-1a's offset basis
    assert_eq!(__hash("a"), 0xaf63_dc4c_8601_ec8c); // FNV-1a 64 of "a"
}

/// Every integer operation of a handle, on a fresh word, against `core`'s results.
macro_rules! int_ops {
    ($t:ty, $h:expr) => {{
        let h = $h;
        // SAFETY: `h` is a fresh, aligned word only this test touches.
        unsafe {
            h.store(10, Relaxed);
            assert_eq!(h.load(SeqCst), 10);
            assert_eq!(h.swap(20, AcqRel), 10);
            assert_eq!(h.compare_exchange(20, 30, Release, Relaxed), Ok(20));
            assert_eq!(h.compare_exchange(20, 40, SeqCst, SeqCst), Err(30));
            assert_eq!(h.compare_exchange_weak(30, 31, AcqRel, Acquire), Ok(30));
            assert_eq!(h.fetch_add(9, Relaxed), 31);
            assert_eq!(h.fetch_sub(50, Acquire), 40);
            assert_eq!(h.load(Relaxed), (40 as $t).wrapping_sub(50));
            h.store(0b1100, Release);
            assert_eq!(h.fetch_and(0b1010, Relaxed), 0b1100);
            assert_eq!(h.fetch_or(0b0001, Relaxed), 0b1000);
            assert_eq!(h.fetch_xor(0b1111, Relaxed), 0b1001);
            assert_eq!(h.load(Relaxed), 0b0110);
            // min/max compare with the type's signedness: -1 (or MAX) against 6.
            h.store((0 as $t).wrapping_sub(1), Relaxed);
            assert_eq!(h.fetch_max(6, Relaxed), (0 as $t).wrapping_sub(1));
            let after_max = h.load(Relaxed);
            assert_eq!(after_max, <$t>::max((0 as $t).wrapping_sub(1), 6));
            assert_eq!(h.fetch_min(6, Relaxed), after_max);
            assert_eq!(h.load(Relaxed), 6);
            h.red_add(4, SeqCst);
            assert_eq!(h.load(Relaxed), 10);
        }
    }};
}

macro_rules! float_ops {
    ($t:ty, $h:expr) => {{
        let h = $h;
        // SAFETY: as in `int_ops`.
        unsafe {
            h.store(1.5, Relaxed);
            assert_eq!(h.load(Acquire), 1.5);
            assert_eq!(h.swap(2.5, AcqRel), 1.5);
            assert_eq!(h.compare_exchange(2.5, -0.0, SeqCst, Relaxed), Ok(2.5));
            // Bits, not values: 0.0 is not -0.0.
            assert_eq!(h.compare_exchange(0.0, 1.0, SeqCst, Relaxed), Err(-0.0));
            assert_eq!(h.fetch_add(3.0, Relaxed), -0.0);
            assert_eq!(h.fetch_sub(1.0, Release), 3.0);
            h.red_add(0.5, Release);
            assert_eq!(h.load(Relaxed), 2.5 as $t);
        }
    }};
}

#[test]
fn shared_handles_return_what_core_returns() {
    shared! {
        static U32: Atomic<u32, Cta>;
        static I32: Atomic<i32, Cta>;
        static U64: Atomic<u64, Gpu>;
        static I64: Atomic<i64, Sys>;
        static F32: Atomic<f32, Cta>;
        static F64: Atomic<f64, Cta>;
    }
    int_ops!(u32, U32.shared());
    int_ops!(i32, I32.shared());
    int_ops!(u64, U64.shared());
    int_ops!(i64, I64.shared());
    float_ops!(f32, F32.shared());
    float_ops!(f64, F64.shared());
}

#[test]
fn global_handles_return_what_core_returns() {
    let mut u32w = Atomic::<u32, Gpu>::new(0);
    let mut i32w = Atomic::<i32, Gpu>::new(0);
    let mut u64w = Atomic::<u64, Sys>::new(0);
    let mut i64w = Atomic::<i64, Cta>::new(0);
    let mut f32w = Atomic::<f32, Gpu>::new(0.0);
    let mut f64w = Atomic::<f64, Gpu>::new(0.0);
    // SAFETY (each `from_generic`): live, aligned atomics (a kernel's global pointers on the
    // GPU).
    int_ops!(u32, unsafe {
        Global::from_generic(std::ptr::addr_of_mut!(u32w))
    });
    int_ops!(i32, unsafe {
        Global::from_generic(std::ptr::addr_of_mut!(i32w))
    });
    int_ops!(u64, unsafe {
        Global::from_generic(std::ptr::addr_of_mut!(u64w))
    });
    int_ops!(i64, unsafe {
        Global::from_generic(std::ptr::addr_of_mut!(i64w))
    });
    float_ops!(f32, unsafe {
        Global::from_generic(std::ptr::addr_of_mut!(f32w))
    });
    float_ops!(f64, unsafe {
        Global::from_generic(std::ptr::addr_of_mut!(f64w))
    });
    assert_eq!(u32w.into_inner(), 10);
    assert_eq!(f64w.into_inner(), 2.5);
}

#[test]
fn global_handles_index_and_convert() {
    let mut words = [0u64; 4];
    // SAFETY: the array's words, viewed as atomics.
    let g = unsafe { Global::<Atomic<u64, Gpu>>::from_generic(words.as_mut_ptr().cast()) };
    for i in 0..4 {
        // SAFETY: in bounds.
        unsafe { g.add(i).fetch_add(i as u64 + 1, Relaxed) };
    }
    assert_eq!(g.add(2).generic().cast::<u64>(), words[2..].as_mut_ptr());
    assert_eq!(g.cast::<u64>().add(3).generic(), words[3..].as_mut_ptr());
    // `Debug` is the pointer's, whatever the pointee (no `T: Debug` bound).
    let p = words[1..].as_mut_ptr();
    assert_eq!(format!("{:?}", g.add(1)), format!("Global({p:?})"));
    assert_eq!(words, [1, 2, 3, 4]);
}

#[test]
fn shared_and_global_handles_count_the_same_totals_as_atomic() {
    // The same contended workload through the generic `Atomic`, a `Shared` handle and a
    // `Global` handle: three equal totals.
    shared! { static VIA_SHARED: Atomic<u64, Cta>; }
    let generic = Atomic::<u64, Cta>::new(0);
    let mut global = Atomic::<u64, Gpu>::new(0);
    let gp = &mut global as *mut Atomic<u64, Gpu> as usize;
    // SAFETY: one thread initializes before the others start.
    unsafe { VIA_SHARED.shared().store(0, Relaxed) };
    thread::scope(|s| {
        for t in 0..THREADS {
            let generic = &generic;
            s.spawn(move || {
                // SAFETY: a live atomic for the whole scope.
                let g = unsafe { Global::<Atomic<u64, Gpu>>::from_generic(gp as *mut _) };
                for i in 0..ITERS {
                    let v = (t * ITERS + i) as u64;
                    generic.fetch_add(v, AcqRel);
                    // SAFETY: initialized above; atomic accesses only.
                    unsafe {
                        VIA_SHARED.shared().fetch_add(v, AcqRel);
                        g.red_add(v, Release);
                    }
                }
            });
        }
    });
    let n = (THREADS * ITERS) as u64;
    let want = n * (n - 1) / 2;
    assert_eq!(generic.load(Relaxed), want);
    // SAFETY: the threads have joined.
    assert_eq!(unsafe { VIA_SHARED.shared().load(Relaxed) }, want);
    assert_eq!(global.into_inner(), want);
}

#[test]
#[should_panic(expected = "there is no such thing as a release load")]
fn handles_refuse_what_core_refuses() {
    shared! { static W: Atomic<u32, Cta>; }
    // SAFETY: written before the load.
    unsafe {
        W.shared().store(0, Relaxed);
        W.shared().load(Release);
    }
}

#[test]
fn shared_from_generic_is_the_same_location() {
    let mut x = 5u32;
    // SAFETY: on the host any pointer is a `Shared`'s.
    let s = unsafe { Shared::from_generic(&mut x as *mut u32) };
    // SAFETY: `x` is live and only this test touches it.
    unsafe {
        s.write(6);
        assert_eq!(s.read(), 6);
    }
    assert_eq!(s.generic(), &mut x as *mut u32);
    assert_eq!(x, 6);
}
