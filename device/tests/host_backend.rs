//! The host backend (core::sync::atomic) under real thread contention: algorithms written
//! against `ptx_sync` are testable on a CPU, so its results must be exact here too.

use ptx_sync::{fence, Atomic, Cta, Gpu, Ordering::*, Sys};
use std::sync::Arc;
use std::thread;

const THREADS: u32 = 4;
const ITERS: u32 = 20_000;

fn on_threads(f: impl Fn(u32) + Send + Sync + 'static) {
    let f = Arc::new(f);
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let f = f.clone();
            thread::spawn(move || f(t))
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

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
