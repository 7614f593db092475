//! The 8/16-bit and half-float atomic types on the host backend: 8/16-bit integers, half floats and their
//! exact conversions, float min/max (PTX's NaN and signed-zero rule), `update` / `try_update`
//! on every type, and the sm_90 vector types (per lane on the host). Exact values throughout.
// Not a loom model: built without `--cfg loom` only (loom's run builds every test target).
#![cfg(not(loom))]

mod common {
    pub mod threads;
}

use common::threads::{on_threads, THREADS};
use ptx_sync::atomic::{AtomicBf16x8, AtomicF16x4, AtomicF32x2, AtomicF32x4};
use ptx_sync::{
    Atomic, AtomicBool, AtomicPtr, Bf16, Bf16x2, Cta, F16x2, Gpu, Ordering::*, Sys, F16,
};

// ---- binary16 / bfloat16 conversions, against independent arithmetic ----

/// The value of binary16 bits, computed in f64 from the IEEE definition (not from the crate).
fn f16_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as f64;
    match exp {
        0 => sign * man * 2f64.powi(-24),
        31 if man == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + man / 1024.0) * 2f64.powi(e - 15),
    }
}

#[test]
fn f16_to_f32_is_exact_for_all_65536_values() {
    for h in 0..=u16::MAX {
        let got = F16::from_bits(h).to_f32();
        let want = f16_value(h);
        if want.is_nan() {
            assert!(got.is_nan(), "{h:#06x}");
            // The payload moves to the top of the f32 mantissa; the sign stays.
            assert_eq!(got.to_bits() >> 13 & 0x3ff, (h & 0x3ff) as u32, "{h:#06x}");
            assert_eq!(got.is_sign_negative(), h & 0x8000 != 0);
        } else {
            assert_eq!(got as f64, want, "{h:#06x}");
            assert_eq!(got.is_sign_negative(), h & 0x8000 != 0, "{h:#06x}");
        }
    }
}

#[test]
fn f16_from_f32_rounds_to_nearest_even_everywhere() {
    // Every finite value round-trips; every midpoint between neighbours (exact in f32: it needs
    // 12 significant bits) goes to the even one, and one f32 ulp either side goes to the nearer.
    for h in 0..0x7c00u16 {
        for sign in [0, 0x8000] {
            let a = F16::from_bits(h | sign);
            assert_eq!(F16::from_f32(a.to_f32()).to_bits(), h | sign);
            let next = F16::from_bits((h + 1) | sign); // 0x7bff + 1 is infinity
            if next.to_bits() & 0x7fff == 0x7c00 {
                // Halfway between 65504 and 2^16 (where the next binade would start): 65520
                // rounds to infinity (a tie, to the even mantissa), one ulp less to 65504.
                let mid = if sign == 0 { 65520.0f32 } else { -65520.0 };
                assert_eq!(F16::from_f32(mid).to_bits(), 0x7c00 | sign, "65520");
                assert_eq!(
                    F16::from_f32(f32::from_bits(mid.to_bits() - 1)).to_bits(),
                    h | sign
                );
                continue;
            }
            let mid = ((f16_value(h | sign) + f16_value((h + 1) | sign)) / 2.0) as f32;
            assert_eq!(
                mid as f64,
                (f16_value(h | sign) + f16_value((h + 1) | sign)) / 2.0
            );
            let even = if h & 1 == 0 { h } else { h + 1 };
            assert_eq!(
                F16::from_f32(mid).to_bits(),
                even | sign,
                "tie after {h:#06x}"
            );
            // One f32 ulp nearer zero, and one farther (the bits count magnitude).
            let nearer = f32::from_bits(mid.to_bits() - 1);
            let farther = f32::from_bits(mid.to_bits() + 1);
            assert_eq!(
                F16::from_f32(nearer).to_bits(),
                h | sign,
                "below the tie after {h:#06x}"
            );
            assert_eq!(
                F16::from_f32(farther).to_bits(),
                (h + 1) | sign,
                "above the tie after {h:#06x}"
            );
        }
    }
    // Below half the smallest subnormal: zero (with the sign); the half itself is a tie, to 0.
    assert_eq!(F16::from_f32(2f32.powi(-25)).to_bits(), 0);
    assert_eq!(F16::from_f32(-2f32.powi(-26)).to_bits(), 0x8000);
    assert_eq!(F16::from_f32(2f32.powi(-25) * 1.000001).to_bits(), 1);
    assert_eq!(F16::from_f32(1e9).to_bits(), 0x7c00);
    assert_eq!(F16::from_f32(f32::NEG_INFINITY).to_bits(), 0xfc00);
    assert!(F16::from_f32(f32::NAN).is_nan());
    // A signalling NaN whose payload is only in bits the conversion drops stays a NaN.
    assert!(F16::from_f32(f32::from_bits(0x7f80_0001)).is_nan());
}

#[test]
fn bf16_conversions_are_exact_and_round_to_nearest_even() {
    for b in 0..=u16::MAX {
        let x = Bf16::from_bits(b);
        assert_eq!(x.to_f32().to_bits(), (b as u32) << 16);
        if !x.is_nan() {
            assert_eq!(Bf16::from_f32(x.to_f32()).to_bits(), b);
        }
    }
    for b in 0..0x7f80u32 {
        let tie = f32::from_bits(b << 16 | 0x8000);
        let even = if b & 1 == 0 { b } else { b + 1 };
        assert_eq!(
            Bf16::from_f32(tie).to_bits() as u32,
            even,
            "tie after {b:#06x}"
        );
        assert_eq!(
            Bf16::from_f32(f32::from_bits(b << 16 | 0x7fff)).to_bits() as u32,
            b
        );
        assert_eq!(
            Bf16::from_f32(f32::from_bits(b << 16 | 0x8001)).to_bits() as u32,
            b + 1
        );
    }
    assert_eq!(
        Bf16::from_f32(f32::MAX).to_bits(),
        0x7f80,
        "rounds past MAX to infinity"
    );
    assert!(Bf16::from_f32(f32::from_bits(0x7f80_0001)).is_nan());
    let pair = Bf16x2::from_f32([1.0, -2.0]);
    assert_eq!(pair.to_bits(), 0xc000_3f80);
    assert_eq!(pair.lanes(), [Bf16::ONE, Bf16::from_f32(-2.0)]);
}

// ---- 8/16-bit integers ----

#[test]
fn small_integers_match_core_op_by_op() {
    macro_rules! check {
        ($t:ty, $core:ty, $vals:expr) => {{
            let vals: &[$t] = &$vals;
            for &a in vals {
                for &b in vals {
                    let ours = Atomic::<$t, Gpu>::new(a);
                    let theirs = <$core>::new(a);
                    assert_eq!(ours.fetch_add(b, AcqRel), theirs.fetch_add(b, AcqRel));
                    assert_eq!(ours.fetch_sub(b, Release), theirs.fetch_sub(b, Release));
                    assert_eq!(ours.fetch_and(b, Relaxed), theirs.fetch_and(b, Relaxed));
                    assert_eq!(ours.fetch_or(a, SeqCst), theirs.fetch_or(a, SeqCst));
                    assert_eq!(ours.fetch_xor(b, Acquire), theirs.fetch_xor(b, Acquire));
                    assert_eq!(ours.fetch_nand(b, AcqRel), theirs.fetch_nand(b, AcqRel));
                    assert_eq!(ours.fetch_min(b, AcqRel), theirs.fetch_min(b, AcqRel));
                    assert_eq!(ours.fetch_max(a, AcqRel), theirs.fetch_max(a, AcqRel));
                    assert_eq!(ours.swap(b, AcqRel), theirs.swap(b, AcqRel));
                    assert_eq!(
                        ours.compare_exchange(a, b, AcqRel, Acquire),
                        theirs.compare_exchange(a, b, AcqRel, Acquire)
                    );
                    assert_eq!(
                        ours.compare_exchange_weak(b, a, SeqCst, Relaxed).is_ok(),
                        ours.load(Relaxed) == a
                    );
                    theirs.store(ours.load(Relaxed), Relaxed);
                    assert_eq!(ours.load(SeqCst), theirs.load(SeqCst));
                }
            }
        }};
    }
    use std::sync::atomic as core_atomic;
    check!(u8, core_atomic::AtomicU8, [0, 1, 7, 0x80, 0xfe, 0xff]);
    check!(i8, core_atomic::AtomicI8, [0, 1, -1, i8::MIN, i8::MAX, -7]);
    check!(
        u16,
        core_atomic::AtomicU16,
        [0, 1, 0x7fff, 0x8000, 0xfffe, 0xffff]
    );
    check!(
        i16,
        core_atomic::AtomicI16,
        [0, 1, -1, i16::MIN, i16::MAX, -300]
    );
}

#[test]
fn contended_small_integers_are_exact() {
    static U8: Atomic<u8, Gpu> = Atomic::new(0);
    static I8: Atomic<i8, Cta> = Atomic::new(0);
    static U16: Atomic<u16, Sys> = Atomic::new(0);
    static I16: Atomic<i16, Gpu> = Atomic::new(0);
    static MAX16: Atomic<u16, Gpu> = Atomic::new(0);
    static CAS8: Atomic<u8, Gpu> = Atomic::new(0);
    const ITERS: u32 = 10_000;
    on_threads(|t| {
        for i in 0..ITERS {
            U8.fetch_add(3, Relaxed);
            I8.fetch_sub(1, AcqRel);
            U16.update(AcqRel, Acquire, |x| x.wrapping_add(7));
            I16.fetch_add(-2, SeqCst);
            MAX16.fetch_max((t * ITERS + i) as u16, Release);
            let _ = CAS8.try_update(AcqRel, Relaxed, |x| Some(x.wrapping_add(1)));
        }
    });
    let n = THREADS * ITERS;
    assert_eq!(U8.load(Relaxed), (3 * n % 256) as u8);
    assert_eq!(I8.load(Relaxed), (n as i64).wrapping_neg() as i8);
    assert_eq!(U16.load(Relaxed), (7 * n % 65536) as u16);
    assert_eq!(I16.load(Relaxed), (-2 * n as i64) as i16);
    assert_eq!(MAX16.load(Relaxed), (n - 1) as u16);
    assert_eq!(CAS8.load(Relaxed), (n % 256) as u8);
}

#[test]
fn small_integer_views_touch_only_their_bytes() {
    // Four u8 views and two u16 views over one word (host: core's narrow atomics).
    let mut word = [0u8; 4];
    let bytes: Vec<&Atomic<u8, Gpu>> = (0..4)
        .map(|i| unsafe { Atomic::from_ptr(word.as_mut_ptr().add(i)) })
        .collect();
    for (i, b) in bytes.iter().enumerate() {
        b.store(0x10 * (i as u8 + 1), Release);
    }
    assert_eq!(bytes[2].fetch_add(0xf5, AcqRel), 0x30);
    assert_eq!(
        bytes[2].load(Relaxed),
        0x25,
        "wraps without carrying into byte 3"
    );
    assert_eq!(bytes[3].load(Relaxed), 0x40);
    assert_eq!(word, [0x10, 0x20, 0x25, 0x40]);
}

// ---- half-float atomics ----

/// What `n` bfloat16 additions of `step` to 0 give, one rounding per add (the adds commute
/// here: every one adds the same value).
fn bf16_sum(step: f32, n: u32) -> f32 {
    (0..n)
        .fold(Bf16::ZERO, |acc, _| Bf16::from_f32(acc.to_f32() + step))
        .to_f32()
}

#[test]
fn contended_half_adds_are_exact() {
    static H: Atomic<F16, Gpu> = Atomic::new(F16::ZERO);
    static B: Atomic<Bf16, Gpu> = Atomic::new(Bf16::ZERO);
    static H2: Atomic<F16x2, Sys> = Atomic::new(F16x2::from_f32([0.0, 0.0]));
    static B2: Atomic<Bf16x2, Cta> = Atomic::new(Bf16x2::from_f32([0.0, 0.0]));
    const ITERS: u32 = 256;
    on_threads(|_| {
        for _ in 0..ITERS {
            H.fetch_add(F16::from_f32(0.5), AcqRel);
            B.red_add(Bf16::from_f32(0.5), Relaxed);
            H2.fetch_add(F16x2::from_f32([0.5, -1.0]), Relaxed);
            B2.fetch_sub(Bf16x2::from_f32([-1.0, 0.25]), SeqCst);
        }
    });
    let n = THREADS * ITERS;
    // binary16 has 11 significant bits: every partial sum (a multiple of 0.5 below 512, or an
    // integer down to -1024) is exact, so the total is too.
    assert_eq!(H.load(Relaxed).to_f32(), 512.0);
    assert_eq!(H2.load(Relaxed).to_f32(), [512.0, -1024.0]);
    // bfloat16 has 8: the sums stop growing where a step is half an ulp (128 + 0.5 is a tie,
    // to even 128), and every add rounds the same way whatever the order.
    assert_eq!(B.load(Relaxed).to_f32(), 128.0);
    assert_eq!(bf16_sum(0.5, n), 128.0);
    assert_eq!(
        B2.load(Relaxed).to_f32(),
        [bf16_sum(1.0, n), bf16_sum(-0.25, n)]
    );
    assert_eq!(bf16_sum(1.0, n), 256.0);
}

#[test]
fn half_rmws_round_like_ptx() {
    let a = Atomic::<F16, Gpu>::new(F16::from_f32(2048.0));
    a.fetch_add(F16::ONE, Relaxed); // 2049 is a tie between 2048 and 2050: even is 2048
    assert_eq!(a.load(Relaxed).to_f32(), 2048.0);
    a.fetch_add(F16::from_f32(3.0), Relaxed); // 2051: tie, to 2052
    assert_eq!(a.load(Relaxed).to_f32(), 2052.0);
    a.store(F16::MAX, Relaxed);
    a.fetch_add(F16::from_f32(16.0), Relaxed); // 65504 + 16 = 65520: tie, to infinity
    assert_eq!(a.load(Relaxed), F16::INFINITY);
    // Subnormals are kept (`.noftz`).
    a.store(F16::from_bits(1), Relaxed);
    assert_eq!(a.fetch_add(F16::from_bits(1), Relaxed).to_bits(), 1);
    assert_eq!(a.load(Relaxed).to_bits(), 2);
    // swap / compare_exchange move bits.
    assert_eq!(a.swap(-F16::ZERO, AcqRel).to_bits(), 2);
    assert_eq!(
        a.compare_exchange(F16::ZERO, F16::ONE, AcqRel, Acquire)
            .map_err(F16::to_bits),
        Err(0x8000),
        "-0.0 is not 0.0 to a compare-exchange"
    );
    assert!(a
        .compare_exchange_weak(-F16::ZERO, F16::ONE, AcqRel, Acquire)
        .is_ok());
    assert_eq!(a.wait(F16::ZERO, Acquire), F16::ONE);
}

// ---- float min/max: PTX's rule (IEEE minimumNumber / maximumNumber) ----

#[test]
fn float_min_max_follow_ptx_nan_and_zero_rules() {
    let f = Atomic::<f32, Gpu>::new(1.0);
    assert_eq!(f.fetch_min(f32::NAN, AcqRel), 1.0);
    assert_eq!(f.load(Relaxed), 1.0, "a NaN operand is ignored");
    f.store(f32::from_bits(0x7fc0_1234), Relaxed);
    assert!(f.fetch_max(-3.0, Relaxed).is_nan());
    assert_eq!(f.load(Relaxed), -3.0, "a stored NaN is replaced");
    f.store(f32::NAN, Relaxed);
    f.fetch_min(f32::from_bits(0xffc0_0001), Relaxed);
    assert_eq!(
        f.load(Relaxed).to_bits(),
        0x7fff_ffff,
        "two NaNs: the canonical NaN"
    );
    f.store(0.0, Relaxed);
    assert_eq!(f.fetch_min(-0.0, SeqCst).to_bits(), 0);
    assert_eq!(f.load(Relaxed).to_bits(), 0x8000_0000, "-0.0 < +0.0");
    f.fetch_max(0.0, Release);
    assert_eq!(f.load(Relaxed).to_bits(), 0, "+0.0 > -0.0");
    f.fetch_max(-0.0, Release);
    assert_eq!(f.load(Relaxed).to_bits(), 0, "max(+0.0, -0.0) stays +0.0");
    f.fetch_min(f32::NEG_INFINITY, Relaxed);
    assert_eq!(f.load(Relaxed), f32::NEG_INFINITY);

    let d = Atomic::<f64, Cta>::new(-0.0);
    d.fetch_min(0.0, AcqRel);
    assert_eq!(
        d.load(Relaxed).to_bits(),
        (-0.0f64).to_bits(),
        "min(-0.0, +0.0) stays -0.0"
    );
    d.fetch_max(f64::NAN, AcqRel);
    assert_eq!(d.load(Relaxed).to_bits(), (-0.0f64).to_bits());
    d.store(f64::NAN, Relaxed);
    d.fetch_max(f64::NAN, Relaxed);
    assert_eq!(d.load(Relaxed).to_bits(), 0x7fff_ffff_ffff_ffff);

    let h = Atomic::<F16, Gpu>::new(F16::NAN);
    h.fetch_min(F16::from_f32(-2.5), Relaxed);
    assert_eq!(h.load(Relaxed).to_f32(), -2.5);
    h.fetch_max(F16::INFINITY, Relaxed);
    assert_eq!(h.load(Relaxed), F16::INFINITY);
    let p = Atomic::<F16x2, Gpu>::new(F16x2::from_f32([0.0, f32::NAN]));
    p.fetch_min(F16x2::from_f32([-0.0, 7.0]), AcqRel);
    assert_eq!(
        p.load(Relaxed).to_bits(),
        0x4700_8000,
        "lane by lane: [-0.0, 7.0]"
    );
    let b = Atomic::<Bf16x2, Gpu>::new(Bf16x2::from_f32([1.0, -1.0]));
    b.fetch_max(Bf16x2::from_f32([f32::NAN, 5.0]), AcqRel);
    assert_eq!(b.load(Relaxed).to_f32(), [1.0, 5.0]);
}

#[test]
fn contended_float_min_max_find_the_extremes() {
    static MIN: Atomic<f32, Gpu> = Atomic::new(f32::INFINITY);
    static MAX: Atomic<f64, Sys> = Atomic::new(f64::NEG_INFINITY);
    static HMIN: Atomic<Bf16, Gpu> = Atomic::new(Bf16::INFINITY);
    on_threads(|t| {
        for i in 0..5000u32 {
            let x = ((t * 5000 + i) as f32 * 0.37).sin() * 1000.0;
            MIN.fetch_min(x, AcqRel);
            MAX.fetch_max(x as f64, Relaxed);
            HMIN.fetch_min(Bf16::from_f32(x), Release);
        }
    });
    let all = (0..THREADS * 5000).map(|k| (k as f32 * 0.37).sin() * 1000.0);
    let lo = all.clone().fold(f32::INFINITY, f32::min);
    let hi = all.clone().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(MIN.load(Relaxed), lo);
    assert_eq!(MAX.load(Relaxed), hi as f64);
    let hlo = all
        .map(Bf16::from_f32)
        .fold(f32::INFINITY, |m, b| m.min(b.to_f32()));
    assert_eq!(HMIN.load(Relaxed).to_f32(), hlo);
}

// ---- update / try_update on every type ----

#[test]
fn update_and_try_update_on_every_type() {
    macro_rules! ints {
        ($($t:ty),*) => {$({
            let a = Atomic::<$t, Gpu>::new(5);
            assert_eq!(a.update(AcqRel, Acquire, |x| x * 2), 5);
            assert_eq!(a.try_update(Release, Relaxed, |x| (x == 10).then_some(1)), Ok(10));
            assert_eq!(a.try_update(SeqCst, SeqCst, |x| (x == 10).then_some(2)), Err(1));
            assert_eq!(a.fetch_update(AcqRel, Acquire, |x| Some(x + 1)), Ok(1));
            assert_eq!(a.load(Relaxed), 2);
        })*};
    }
    ints!(u8, i8, u16, i16, u32, i32, u64, i64, usize, isize);

    let f = Atomic::<f32, Gpu>::new(1.5);
    assert_eq!(f.update(AcqRel, Acquire, |x| x * 4.0), 1.5);
    assert_eq!(
        f.try_update(AcqRel, Acquire, |x| (x > 10.0).then_some(0.0)),
        Err(6.0)
    );
    assert_eq!(f.fetch_update(AcqRel, Acquire, |x| Some(-x)), Ok(6.0));
    assert_eq!(f.load(Relaxed), -6.0);
    assert_eq!(
        f.compare_exchange_weak(-6.0, 1.0, AcqRel, Relaxed),
        Ok(-6.0)
    );
    let d = Atomic::<f64, Cta>::new(2.0);
    assert_eq!(d.update(Release, Relaxed, |x| x / 8.0), 2.0);
    assert_eq!(d.try_update(Release, Relaxed, Some), Ok(0.25));
    assert_eq!(
        d.compare_exchange_weak(1.0, 0.0, AcqRel, Relaxed),
        Err(0.25)
    );

    let h = Atomic::<F16, Gpu>::new(F16::ONE);
    assert_eq!(h.update(AcqRel, Acquire, |x| -x), F16::ONE);
    assert_eq!(
        h.try_update(AcqRel, Acquire, |_| None).map_err(F16::to_f32),
        Err(-1.0)
    );
    let b2 = Atomic::<Bf16x2, Gpu>::new(Bf16x2::from_f32([1.0, 2.0]));
    b2.update(AcqRel, Relaxed, |x| Bf16x2::new(x.hi(), x.lo()));
    assert_eq!(b2.load(Relaxed).to_f32(), [2.0, 1.0]);

    let b = AtomicBool::<Gpu>::new(true);
    assert!(b.update(AcqRel, Acquire, |x| !x));
    assert_eq!(
        b.try_update(AcqRel, Acquire, |x| x.then_some(false)),
        Err(false)
    );

    let mut slots = [10u32, 20, 30];
    let base = slots.as_mut_ptr();
    let p = AtomicPtr::<u32, Gpu>::new(base);
    assert_eq!(p.update(AcqRel, Acquire, |q| q.wrapping_add(2)), base);
    assert_eq!(
        p.try_update(AcqRel, Acquire, |q| (q == base).then_some(base)),
        Err(base.wrapping_add(2))
    );
    assert_eq!(unsafe { *p.load(Relaxed) }, 30);
}

#[test]
#[should_panic(expected = "release load")]
fn small_update_rejects_a_release_fetch_order_like_core() {
    let a = Atomic::<u8, Gpu>::new(0);
    a.update(AcqRel, Release, |x| x);
}

// ---- sm_90 vectors: per lane on the host ----

#[test]
fn vector_adds_are_exact_per_lane() {
    static V2: AtomicF32x2<Gpu> = AtomicF32x2::new([0.0; 2]);
    static V4: AtomicF32x4<Sys> = AtomicF32x4::new([0.0; 4]);
    static H4: AtomicF16x4<Gpu> = AtomicF16x4::new([F16::ZERO; 4]);
    static B8: AtomicBf16x8<Gpu> = AtomicBf16x8::new([Bf16::ZERO; 8]);
    on_threads(|_| {
        for i in 0..1000 {
            V2.fetch_add([0.25, -1.0], AcqRel);
            V4.red_add([1.0, 2.0, 0.5, -0.25], Release);
            if i < 500 {
                // binary16 partial sums stay exact below 1024 in steps of 0.5.
                let step = [
                    F16::from_f32(0.5),
                    F16::from_f32(0.25),
                    -F16::from_f32(0.5),
                    F16::ZERO,
                ];
                H4.fetch_add(step, Relaxed);
            }
            B8.red_add([Bf16::from_f32(0.125); 8], SeqCst);
        }
    });
    assert_eq!(V2.fetch_add([0.0; 2], Relaxed), [1000.0, -4000.0]);
    assert_eq!(
        V4.lanes().each_ref().map(|l| l.load(Relaxed)),
        [4000.0, 8000.0, 2000.0, -1000.0]
    );
    let h4 = H4.fetch_add([F16::ZERO; 4], Relaxed).map(F16::to_f32);
    assert_eq!(h4, [1000.0, 500.0, -1000.0, 0.0]);
    // bfloat16 sums of 0.125 stop growing at 32 (32 + 0.125 is below half an ulp).
    assert_eq!(bf16_sum(0.125, 4000), 32.0);
    assert_eq!(B8.lanes()[7].load(Relaxed).to_f32(), 32.0);
}

#[test]
fn vector_min_max_per_lane() {
    let v = AtomicF16x4::<Gpu>::new([F16::ONE, F16::NAN, F16::ZERO, F16::from_f32(-3.0)]);
    let old = v.fetch_min(
        [F16::from_f32(0.5), F16::from_f32(2.0), -F16::ZERO, F16::NAN],
        AcqRel,
    );
    assert_eq!(old.map(F16::to_bits), [0x3c00, 0x7fff, 0x0000, 0xc200]);
    assert_eq!(
        v.lanes().each_ref().map(|l| l.load(Relaxed).to_bits()),
        [0x3800, 0x4000, 0x8000, 0xc200]
    );
    v.red_max([F16::from_f32(4.0); 4], Release);
    assert_eq!(
        v.lanes().each_ref().map(|l| l.load(Relaxed).to_f32()),
        [4.0; 4]
    );
    #[repr(C, align(8))]
    struct Pair([f32; 2]);
    let mut mem = Pair([0.0, 1.0]);
    let view = unsafe { AtomicF32x2::<Gpu>::from_ptr(&mut mem.0) };
    view.red_add([1.0, 1.0], Relaxed);
    assert_eq!(mem.0, [1.0, 2.0]);
}
