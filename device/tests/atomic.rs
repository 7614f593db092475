//! The atomics that mirror core's (`Atomic<T>` over integers and floats, `AtomicBool`,
//! `AtomicPtr`, `AtomicFlag`, fences, waits) on the host backend (core::sync::atomic) under
//! real thread contention: algorithms written against `ptx_sync` are testable on a CPU, so its
//! results must be exact here too. Loom models check that a wait, a flag lock and a published
//! pointer carry the writes made before them.

mod common {
    #[cfg(loom)]
    pub mod models;
    #[cfg(not(loom))]
    pub mod threads;
}

/// Std threads running the algorithms the GPU runs, counted exactly.
#[cfg(not(loom))]
mod host {
    use crate::common::threads::{on_threads, THREADS};
    use core::time::Duration;
    use ptx_sync::{
        fence, Atomic, AtomicBool, AtomicFlag, AtomicIsize, AtomicPtr, AtomicUsize, Cta, Gpu,
        Ordering::*, Sys, TimedOut,
    };
    use std::sync::Arc;
    use std::thread;

    const ITERS: u32 = 20_000;

    #[test]
    fn contended_integer_rmws_are_exact() {
        static ADD: Atomic<u64, Gpu> = Atomic::new(0);
        static SUB: Atomic<i32, Cta> = Atomic::new(0);
        static CAS: Atomic<u32, Sys> = Atomic::new(0);
        static RED: Atomic<i64, Gpu> = Atomic::new(0);
        static MAX: Atomic<i32, Gpu> = Atomic::new(i32::MIN);
        static MIN: Atomic<u64, Gpu> = Atomic::new(u64::MAX);
        on_threads(|t| {
            for i in 0..ITERS {
                ADD.fetch_add(1, Relaxed);
                SUB.fetch_sub(1, AcqRel);
                CAS.fetch_update(AcqRel, Acquire, |v| Some(v + 1)).unwrap();
                RED.red_add(2, Release);
                MAX.fetch_max((t * ITERS + i) as i32 - 1000, SeqCst);
                MIN.fetch_min((t * ITERS + i) as u64 + 5, Relaxed);
            }
        });
        let n = (THREADS * ITERS) as u64;
        assert_eq!(ADD.load(SeqCst), n);
        assert_eq!(SUB.load(Acquire), -(n as i32));
        assert_eq!(CAS.load(Relaxed), n as u32);
        assert_eq!(RED.load(Relaxed), 2 * n as i64);
        assert_eq!(MAX.load(Relaxed), n as i32 - 1 - 1000);
        assert_eq!(MIN.load(Relaxed), 5);
    }

    #[test]
    fn wrapping_counters_follow_ptx_rules() {
        static INC: Atomic<u32, Gpu> = Atomic::new(0);
        on_threads(|_| {
            for _ in 0..ITERS {
                INC.fetch_inc(9, Relaxed);
            }
        });
        assert_eq!(INC.load(Relaxed), (THREADS * ITERS) % 10);

        let dec = Atomic::<u32, Gpu>::new(2);
        assert_eq!(dec.fetch_dec(5, Relaxed), 2);
        assert_eq!(dec.fetch_dec(5, Relaxed), 1);
        assert_eq!(dec.fetch_dec(5, Relaxed), 0);
        assert_eq!(dec.load(Relaxed), 5, "0 wraps to the limit");
        dec.store(9, Relaxed);
        dec.red_dec(5, Relaxed);
        assert_eq!(dec.load(Relaxed), 5, "above the limit resets to the limit");
    }

    #[test]
    fn float_sums_are_exact_for_representable_steps() {
        static F: Atomic<f32, Gpu> = Atomic::new(0.0);
        static D: Atomic<f64, Gpu> = Atomic::new(0.0);
        on_threads(|_| {
            for _ in 0..ITERS {
                F.fetch_add(0.25, Relaxed);
                D.red_add(0.5, Relaxed);
            }
        });
        assert_eq!(F.load(Relaxed), (THREADS * ITERS) as f32 * 0.25);
        assert_eq!(D.load(Relaxed), (THREADS * ITERS) as f64 * 0.5);
    }

    #[test]
    fn swap_conserves_values_and_bits_round_trip() {
        static W: Atomic<u64, Gpu> = Atomic::new(0);
        static SUM: Atomic<u64, Gpu> = Atomic::new(0);
        on_threads(|t| {
            for i in 0..ITERS {
                let old = W.swap((t * ITERS + i + 1) as u64, AcqRel);
                SUM.fetch_add(old, Relaxed);
            }
        });
        let n = (THREADS * ITERS) as u64;
        assert_eq!(SUM.load(Relaxed) + W.load(Relaxed), n * (n + 1) / 2);

        let f = Atomic::<f64, Cta>::new(-0.0);
        assert_eq!(
            f.compare_exchange(0.0, 1.0, AcqRel, Acquire),
            Err(-0.0),
            "bitwise compare"
        );
        assert_eq!(f.compare_exchange(-0.0, 1.0, AcqRel, Acquire), Ok(-0.0));
    }

    #[test]
    fn release_acquire_message_passing_delivers_every_payload() {
        const ROUNDS: u32 = 20_000;
        let data = Arc::new([const { Atomic::<u32, Gpu>::new(0) }; 4]);
        let flag = Arc::new(Atomic::<u32, Gpu>::new(0));
        let ack = Arc::new(Atomic::<u32, Gpu>::new(0));
        let (d, f, a) = (data.clone(), flag.clone(), ack.clone());
        let consumer = thread::spawn(move || {
            let mut verified = 0;
            for r in 1..=ROUNDS {
                while f.load(Relaxed) != r {
                    std::hint::spin_loop();
                }
                fence::<Gpu>(Acquire);
                if d.iter()
                    .enumerate()
                    .all(|(i, w)| w.load(Relaxed) == r * 4 + i as u32)
                {
                    verified += 1;
                }
                a.store(r, Release);
            }
            verified
        });
        for r in 1..=ROUNDS {
            for (i, w) in data.iter().enumerate() {
                w.store(r * 4 + i as u32, Relaxed);
            }
            flag.store(r, Release);
            while ack.load(Acquire) != r {
                std::hint::spin_loop();
            }
        }
        assert_eq!(consumer.join().unwrap(), ROUNDS);
    }

    #[test]
    fn from_ptr_views_existing_memory() {
        let mut words = [1u32, 2, 3];
        let a = unsafe { Atomic::<u32, Gpu>::from_ptr(words.as_mut_ptr().add(1)) };
        assert_eq!(a.fetch_or(0b100, Relaxed), 2);
        assert_eq!(a.fetch_and(0b110, Relaxed), 0b110);
        assert_eq!(a.fetch_xor(0b010, Relaxed), 0b110);
        assert_eq!(words, [1, 0b100, 3]);
    }

    #[test]
    #[should_panic(expected = "acquire store")]
    fn invalid_orders_panic_like_core() {
        Atomic::<u32, Gpu>::new(0).red_add(1, Acquire);
    }

    /// `AtomicFlag` as a spin lock around plain (non-atomic) data: `test_and_set(Acquire)` to
    /// take it, `wait(true)` while taken, `clear(Release)` to give it back. Every increment is
    /// counted and never two holders at once.
    #[test]
    fn atomic_flag_lock_counts_exactly() {
        struct Shared {
            lock: AtomicFlag<Gpu>,
            count: std::cell::UnsafeCell<u64>,
            holders: Atomic<u32, Gpu>,
            most: Atomic<u32, Gpu>,
        }
        // SAFETY: `count` is only touched by the holder of `lock`.
        unsafe impl Sync for Shared {}
        static S: Shared = Shared {
            lock: AtomicFlag::new(),
            count: std::cell::UnsafeCell::new(0),
            holders: Atomic::new(0),
            most: Atomic::new(0),
        };
        on_threads(|_| {
            for _ in 0..ITERS {
                while S.lock.test_and_set(Acquire) {
                    S.lock.wait(true, Relaxed);
                }
                S.most
                    .fetch_max(S.holders.fetch_add(1, Relaxed) + 1, Relaxed);
                // SAFETY: the flag is held.
                unsafe { *S.count.get() += 1 };
                S.holders.fetch_sub(1, Relaxed);
                S.lock.clear(Release);
                S.lock.notify_one();
            }
        });
        assert!(!S.lock.test(Acquire));
        assert_eq!(unsafe { *S.count.get() }, (THREADS * ITERS) as u64);
        assert_eq!(S.most.load(Relaxed), 1, "two holders at once");
    }

    #[test]
    fn atomic_flag_views_a_word_and_times_out() {
        let mut word = 0u32;
        let f = unsafe { AtomicFlag::<Sys>::from_ptr(&mut word) };
        assert!(!f.test(Relaxed));
        assert!(!f.test_and_set(AcqRel));
        assert!(f.test_and_set(SeqCst));
        assert_eq!(
            f.wait_for(Duration::from_micros(10), true, Acquire),
            Err(ptx_sync::TimedOut)
        );
        assert_eq!(
            f.wait_for(Duration::from_micros(10), false, Acquire),
            Ok(())
        );
        f.clear(SeqCst);
        assert_eq!(word, 0);
        assert_eq!(std::mem::size_of::<AtomicFlag<Gpu>>(), 4);
    }

    /// Every boolean operation against core's `AtomicBool`, for both starting values and both
    /// operands: the returned previous value and the value left.
    #[test]
    fn atomic_bool_truth_table_matches_core() {
        use std::sync::atomic::AtomicBool as CoreBool;
        type Op = (
            &'static str,
            fn(&AtomicBool<Gpu>, bool) -> bool,
            fn(&CoreBool, bool) -> bool,
        );
        // A row whose operation has the same name on both types: `$method(b, $order)`.
        macro_rules! same {
            ($name:literal, $method:ident, $order:expr) => {
                (
                    $name,
                    |a, b| a.$method(b, $order),
                    |c, b| c.$method(b, $order),
                )
            };
        }
        let ops: [Op; 8] = [
            same!("and", fetch_and, AcqRel),
            same!("or", fetch_or, AcqRel),
            same!("xor", fetch_xor, AcqRel),
            same!("nand", fetch_nand, AcqRel),
            (
                "not",
                |a, _| a.fetch_not(SeqCst),
                |c, _| c.fetch_xor(true, SeqCst),
            ),
            same!("swap", swap, Release),
            (
                "cas true->b",
                |a, b| {
                    a.compare_exchange(true, b, AcqRel, Acquire)
                        .unwrap_or_else(|x| x)
                },
                |c, b| {
                    c.compare_exchange(true, b, AcqRel, Acquire)
                        .unwrap_or_else(|x| x)
                },
            ),
            (
                "update to !b",
                |a, b| a.fetch_update(AcqRel, Acquire, |_| Some(!b)).unwrap(),
                // (core's `fetch_update` is deprecated from 1.99; this is what it does here)
                |c, b| c.swap(!b, AcqRel),
            ),
        ];
        for (name, ours, core_op) in ops {
            for start in [false, true] {
                for operand in [false, true] {
                    let mut word = 7u32; // overwritten by the store below
                    let a = unsafe { AtomicBool::<Gpu>::from_ptr(&mut word) };
                    a.store(start, Relaxed);
                    let c = CoreBool::new(start);
                    let got = (ours(a, operand), a.load(Acquire));
                    let want = (core_op(&c, operand), c.load(Acquire));
                    assert_eq!(got, want, "{name}({start}, {operand})");
                    assert!(word <= 1, "{name}({start}, {operand}) left the word {word}");
                }
            }
        }
        assert_eq!(std::mem::size_of::<AtomicBool<Gpu>>(), 4, "a u32 word");
    }

    /// Contended `fetch_or(true)` elects exactly one thread; contended `fetch_not` flips exactly
    /// once per call.
    #[test]
    fn atomic_bool_elects_once_and_flips_exactly() {
        static ELECTED: AtomicBool<Gpu> = AtomicBool::new(false);
        static WINNERS: Atomic<u32, Gpu> = Atomic::new(0);
        static TOGGLE: AtomicBool<Gpu> = AtomicBool::new(false);
        static SAW_TRUE: Atomic<u32, Gpu> = Atomic::new(0);
        on_threads(|_| {
            if !ELECTED.fetch_or(true, AcqRel) {
                WINNERS.fetch_add(1, Relaxed);
            }
            for _ in 0..ITERS {
                SAW_TRUE.fetch_add(TOGGLE.fetch_not(AcqRel) as u32, Relaxed);
            }
        });
        assert_eq!(WINNERS.load(Relaxed), 1);
        let n = THREADS * ITERS;
        // The flips form one sequence false, true, false, ...: half of them saw true.
        assert_eq!(SAW_TRUE.load(Relaxed), n / 2);
        assert_eq!(TOGGLE.load(Relaxed), n % 2 == 1);
    }

    /// A Treiber stack of nodes pushed with `compare_exchange` and `fetch_update` by contending
    /// threads: every node is on it exactly once; `swap` takes the whole list.
    #[test]
    fn atomic_ptr_cas_and_swap_lose_no_node() {
        struct Node {
            value: u32,
            next: *mut Node,
        }
        static HEAD: AtomicPtr<Node, Gpu> = AtomicPtr::new(std::ptr::null_mut());
        const EACH: u32 = 2_000;
        on_threads(|t| {
            for i in 0..EACH {
                let node = Box::into_raw(Box::new(Node {
                    value: t * EACH + i,
                    next: std::ptr::null_mut(),
                }));
                if i % 2 == 0 {
                    let mut head = HEAD.load(Relaxed);
                    loop {
                        unsafe { (*node).next = head };
                        match HEAD.compare_exchange_weak(head, node, Release, Relaxed) {
                            Ok(_) => break,
                            Err(now) => head = now,
                        }
                    }
                } else {
                    HEAD.fetch_update(Release, Relaxed, |head| {
                        unsafe { (*node).next = head };
                        Some(node)
                    })
                    .unwrap();
                }
            }
        });
        let mut list = HEAD.swap(std::ptr::null_mut(), Acquire);
        assert!(HEAD.load(Relaxed).is_null());
        let mut seen = vec![false; (THREADS * EACH) as usize];
        while !list.is_null() {
            let node = unsafe { Box::from_raw(list) };
            assert!(
                !std::mem::replace(&mut seen[node.value as usize], true),
                "node twice"
            );
            list = node.next;
        }
        assert!(seen.iter().all(|&s| s), "a node lost");
        let mut slot = std::ptr::null_mut::<u8>();
        let view = unsafe { AtomicPtr::<u8, Sys>::from_ptr(&mut slot) };
        assert_eq!(view.as_ptr(), &mut slot as *mut *mut u8);
    }

    #[test]
    fn usize_and_isize_rmws_are_exact() {
        static ADD: Atomic<usize, Gpu> = Atomic::new(0);
        static SUB: AtomicIsize<Cta> = Atomic::new(0);
        static MIN: Atomic<isize, Gpu> = Atomic::new(isize::MAX);
        static MAX: AtomicUsize<Sys> = Atomic::new(0);
        static BITS: Atomic<usize, Gpu> = Atomic::new(0);
        on_threads(|t| {
            for i in 0..ITERS {
                ADD.fetch_add(3, Relaxed);
                SUB.red_sub(2, Release);
                MIN.fetch_min(-((t * ITERS + i) as isize), AcqRel);
                MAX.fetch_max((t * ITERS + i) as usize, SeqCst);
                if i < 64 && t == 0 {
                    BITS.fetch_or(1 << i, Relaxed);
                }
            }
        });
        let n = (THREADS * ITERS) as usize;
        assert_eq!(ADD.load(Relaxed), 3 * n);
        assert_eq!(SUB.load(Relaxed), -2 * n as isize);
        assert_eq!(MIN.load(Relaxed), -(n as isize - 1));
        assert_eq!(MAX.load(Relaxed), n - 1);
        assert_eq!(BITS.load(Relaxed), usize::MAX);
        assert_eq!(ADD.compare_exchange(3 * n, 1, AcqRel, Acquire), Ok(3 * n));
        assert_eq!(ADD.swap(usize::MAX, Relaxed), 1);
        assert_eq!(ADD.fetch_add(1, Relaxed), usize::MAX);
        assert_eq!(ADD.load(Relaxed), 0, "wrapping");
    }

    /// `fetch_nand` (a compare-exchange loop on both backends) against core's for every integer
    /// type, then contended: each `fetch_nand(!0)` is a NOT, so the values returned alternate
    /// `x0, !x0, x0, ...` in the order the NOTs took effect.
    #[test]
    fn fetch_nand_matches_core_and_is_atomic() {
        macro_rules! against_core {
        ($($t:ty => $core:ident),*) => {$(
            for (x, m) in [(0b1100 as $t, 0b1010 as $t), (0, 0), (!0, !0), (!0, 5), (-1i8 as $t, 0)] {
                let ours = Atomic::<$t, Gpu>::new(x);
                let theirs = std::sync::atomic::$core::new(x);
                assert_eq!(ours.fetch_nand(m, AcqRel), theirs.fetch_nand(m, AcqRel));
                assert_eq!(ours.load(Relaxed), theirs.load(Relaxed), "{x} nand {m}");
            }
        )*};
    }
        against_core!(u32 => AtomicU32, i32 => AtomicI32, u64 => AtomicU64, i64 => AtomicI64,
                  usize => AtomicUsize, isize => AtomicIsize);

        const X0: u64 = 0x0123_4567_89ab_cdef;
        static W: Atomic<u64, Gpu> = Atomic::new(X0);
        static SAW_X0: Atomic<u32, Gpu> = Atomic::new(0);
        on_threads(|_| {
            for _ in 0..ITERS {
                let old = W.fetch_nand(!0, AcqRel);
                assert!(old == X0 || old == !X0, "{old:#x}");
                SAW_X0.fetch_add((old == X0) as u32, Relaxed);
            }
        });
        let n = THREADS * ITERS;
        assert_eq!(SAW_X0.load(Relaxed), n.div_ceil(2));
        assert_eq!(W.load(Relaxed), if n.is_multiple_of(2) { X0 } else { !X0 });
    }

    /// `wait` on every type returns the value that ended it; floats compare bits.
    #[test]
    fn waits_on_every_type_see_the_store() {
        static B: AtomicBool<Gpu> = AtomicBool::new(false);
        static U: Atomic<usize, Gpu> = Atomic::new(0);
        static F: Atomic<f64, Sys> = Atomic::new(0.0);
        static P: AtomicPtr<u32, Gpu> = AtomicPtr::new(std::ptr::null_mut());
        static DATA: Atomic<u32, Gpu> = Atomic::new(0);
        let writer = thread::spawn(|| {
            thread::sleep(std::time::Duration::from_millis(2));
            DATA.store(77, Relaxed);
            P.store(DATA.as_ptr(), Release);
            P.notify_all();
            U.store(5, Release);
            U.notify_one();
            F.store(-0.0, Release);
            F.notify_all();
            B.store(true, Release);
            B.notify_all();
        });
        assert!(B.wait(false, Acquire));
        assert_eq!(F.wait(0.0, Acquire).to_bits(), (-0.0f64).to_bits());
        assert_eq!(U.wait(0, Acquire), 5);
        let p = P.wait(std::ptr::null_mut(), Acquire);
        assert_eq!(unsafe { *p }, 77);
        writer.join().unwrap();
        assert_eq!(
            Atomic::<i32, Cta>::new(-4)
                .wait_until_for(Duration::from_micros(1), Relaxed, |v| v > 0),
            Err(ptx_sync::TimedOut)
        );
    }

    /// Float waits compare bits: `wait(0.0)` returns on `-0.0`, and `wait(NaN)` keeps waiting while
    /// the value is that NaN (a comparison of values would hang on the first and return at once on
    /// the second).
    #[test]
    fn float_waits_compare_bits() {
        static Z: Atomic<f32, Gpu> = Atomic::new(-0.0);
        static N: Atomic<f64, Sys> = Atomic::new(f64::NAN);
        let (tx, rx) = std::sync::mpsc::channel();
        thread::spawn(move || {
            let z = Z.wait(0.0, Acquire).to_bits();
            let n = N.wait(f64::NAN, Acquire);
            tx.send((z, n)).unwrap();
        });
        thread::sleep(std::time::Duration::from_millis(20));
        N.store(2.0, Release);
        let (z, n) = rx
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("wait(0.0) did not return on -0.0");
        assert_eq!(z, (-0.0f32).to_bits());
        assert_eq!(n, 2.0, "wait(NaN) returned while the value was still NaN");
    }

    #[test]
    fn atomic_wait_returns_the_new_value_or_times_out() {
        let a = Atomic::<u64, Gpu>::new(0);
        thread::scope(|s| {
            s.spawn(|| a.store(5, Release));
            assert_eq!(a.wait_until(Acquire, |v| v == 5), 5);
        });
        assert_eq!(a.wait(0, Acquire), 5);
        assert_eq!(
            a.wait_until_for(Duration::from_micros(10), Acquire, |v| v == 6),
            Err(TimedOut)
        );
    }
}

/// Loom models (built only under `--cfg loom`, see common/models.rs): every interleaving of
/// 2-3 threads, with the data the atomic orders in loom cells.
#[cfg(loom)]
mod models {
    use crate::common::models::{bump, model, read};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use loom::thread;
    use ptx_sync::{Atomic, AtomicBool, AtomicFlag, AtomicPtr, Gpu, Ordering};

    #[test]
    fn atomic_wait_sees_the_change_and_its_payload() {
        model(|| {
            let flag = Arc::new(Atomic::<u32, Gpu>::new(0));
            let data = Arc::new(UnsafeCell::new(0u32));
            let (f2, d2) = (flag.clone(), data.clone());
            let t = thread::spawn(move || {
                d2.with_mut(|p| unsafe { *p = 9 });
                f2.store(1, Ordering::Release);
            });
            assert_eq!(flag.wait(0, Ordering::Acquire), 1);
            assert_eq!(read(&data), 9);
            t.join().unwrap();
        });
    }

    /// `AtomicFlag` as a spin lock (device/src/flag.rs: `test_and_set(Acquire)` is `atom.exch`,
    /// `wait(true)` polls, `clear(Release)` is `st.release`): a plain counter in a loom cell,
    /// bumped by two threads. A missing acquire or release is a data race loom reports; two
    /// holders a lost bump.
    #[test]
    fn atomic_flag_lock_excludes_and_publishes() {
        fn lock(f: &AtomicFlag<Gpu>) {
            while f.test_and_set(Ordering::Acquire) {
                f.wait(true, Ordering::Relaxed);
            }
        }
        model(|| {
            let flag = Arc::new(AtomicFlag::<Gpu>::new());
            let data = Arc::new(UnsafeCell::new(0u32));
            let (f2, d2) = (flag.clone(), data.clone());
            let t = thread::spawn(move || {
                lock(&f2);
                bump(&d2);
                f2.clear(Ordering::Release);
                f2.notify_one();
            });
            lock(&flag);
            bump(&data);
            flag.clear(Ordering::Release);
            t.join().unwrap();
            lock(&flag);
            assert_eq!(read(&data), 2);
        });
    }

    /// `AtomicPtr` publishing a node: the release store of the pointer makes the node's contents
    /// visible to the thread that loads it with acquire (`AtomicBool` flags the end).
    #[test]
    fn atomic_ptr_publishes_its_pointee() {
        model(|| {
            let slot = Arc::new(AtomicPtr::<UnsafeCell<u32>, Gpu>::new(std::ptr::null_mut()));
            let done = Arc::new(AtomicBool::<Gpu>::new(false));
            let (s2, d2) = (slot.clone(), done.clone());
            let t = thread::spawn(move || {
                let node = Box::into_raw(Box::new(UnsafeCell::new(0u32)));
                unsafe { (*node).with_mut(|p| *p = 11) };
                s2.store(node, Ordering::Release);
                d2.wait(false, Ordering::Acquire);
                drop(unsafe { Box::from_raw(node) });
            });
            let node = slot.wait(std::ptr::null_mut(), Ordering::Acquire);
            assert_eq!(unsafe { read(&*node) }, 11);
            done.store(true, Ordering::Release);
            t.join().unwrap();
        });
    }
}
