//! Kernels of the atomic-type tests (tests/src/cases/atomic_types.rs): 8/16-bit integers packed
//! in shared and global words (a write to a neighbouring byte shows up as a wrong count), half
//! float adds with exactly representable steps, sm_90 vector adds and min/max, and float
//! min/max as compare-exchange loops. Every buffer is `u32` words; the host decodes lanes.

use crate::{global_id, rmw_order};
use ptx_sync::{block, Atomic, Cta, F16x2, Gpu, Ordering, Scope, F16};

#[allow(dead_code)]
mod data {
    include!("../../mix.rs");
    include!("../../atomic_types_data.rs");
}
use data::{minmax_value, mix};
#[cfg(target_feature = "sm_90")]
use data::{small_value, HALF_STEPS};

// The bytes of one small-integer region (the host decodes the same layout), 512 in all:
// `[0, 64)` 64 `u8` counters, `[64, 128)` 32 `u16` counters, `[128, 192)` 64 `i8` bit words,
// `[192, 224)` 16 `u16` maxima, `[224, 256)` 16 `i16` minima, `[256, 512)` one `u8` per
// thread of a block for `fetch_nand`.

/// One round of the small-integer workload for the thread at `pos` (its lane and form), with
/// operands from `me` (the global thread id). Every form of an increment adds exactly 1 to
/// its lane, so each lane ends at (its threads) x `iters`; a form that wrote a neighbour's
/// stale byte would lose that neighbour's counts. `bits`: also the bit-ownership rounds (only
/// where no two threads share a bit: one block). Returns the bit checks that passed.
#[inline(always)]
unsafe fn small_rounds<S: Scope>(base: *mut u8, pos: u32, me: u32, iters: u32, bits: bool) -> u32 {
    let ord = rmw_order(me);
    let u8s = Atomic::<u8, S>::from_ptr(base.add((pos % 64) as usize));
    let u16s = Atomic::<u16, S>::from_ptr(base.add(64).cast::<u16>().add((pos % 32) as usize));
    let own = Atomic::<i8, S>::from_ptr(base.add(128 + (pos % 64) as usize).cast::<i8>());
    let bit = 1i8 << ((pos / 64) % 4);
    let max = Atomic::<u16, S>::from_ptr(base.add(192).cast::<u16>().add((pos % 16) as usize));
    let min = Atomic::<i16, S>::from_ptr(base.add(224).cast::<i16>().add((pos % 16) as usize));
    let mut passes = 0;
    for i in 0..iters {
        match (pos / 64) % 4 {
            0 => {
                u8s.fetch_add(1, ord);
            }
            1 => {
                u8s.update(ord, Ordering::Relaxed, |x| x.wrapping_add(1));
            }
            2 => {
                let mut x = u8s.load(Ordering::Relaxed);
                while let Err(now) =
                    u8s.compare_exchange_weak(x, x.wrapping_add(1), ord, Ordering::Relaxed)
                {
                    x = now;
                }
            }
            _ => {
                u8s.fetch_sub(u8::MAX, ord); // + 1, wrapping
            }
        }
        // 16 bits: the native `atom.cas.b16` (form 1) meets the word loops (the others) on
        // the same lanes.
        match (pos / 32) % 4 {
            0 => {
                u16s.fetch_add(1, ord);
            }
            1 => {
                let mut x = u16s.load(Ordering::Acquire);
                while let Err(now) =
                    u16s.compare_exchange(x, x.wrapping_add(1), ord, Ordering::Acquire)
                {
                    x = now;
                }
            }
            2 => {
                let _ = u16s.try_update(ord, Ordering::Relaxed, |x| Some(x.wrapping_add(1)));
            }
            _ => {
                u16s.fetch_sub(u16::MAX, ord);
            }
        }
        if bits {
            // This thread owns `bit` of its byte (three other threads own three others): each
            // RMW must find the bit as its owner left it, and the byte ends at 0.
            passes += (own.fetch_or(bit, ord) & bit == 0) as u32;
            passes += (own.fetch_and(!bit, ord) & bit != 0) as u32;
            passes += (own.fetch_xor(bit, ord) & bit == 0) as u32;
            passes += (own.fetch_xor(bit, ord) & bit != 0) as u32;
            // A byte of its own: NAND with all ones flips it, 0x00 and 0xff in turn.
            let mine = Atomic::<u8, S>::from_ptr(base.add(256 + (pos % 256) as usize));
            passes +=
                (mine.fetch_nand(0xff, ord) == if i.is_multiple_of(2) { 0 } else { 0xff }) as u32;
        }
        let x = mix(me, i);
        max.fetch_max(x as u16, ord);
        min.fetch_min((x >> 16) as i16, ord);
    }
    passes
}

/// Small integers in this block's dynamic shared memory (`SMALL_BYTES`, `Atomic<_, Cta>`, 256
/// threads a block): zeroed, every thread's rounds, then copied to `out[block * 128 ..]`; the
/// passed bit and NAND checks (5 a round) are added to `passes[0]`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic_types_small_cta(
    out: *mut u32,
    iters: u32,
    passes: *mut u32,
) {
    let t = block::thread_x();
    let smem = block::dynamic_shared_memory();
    let words = smem.cast::<u32>();
    if t < 128 {
        // The maxima start at 0 (the identity for u16 max); the minima at i16::MAX.
        *words.add(t as usize) = if (56..64).contains(&t) {
            0x7fff_7fff
        } else {
            0
        };
    }
    block::sync();
    let p = small_rounds::<Cta>(smem, t, global_id(), iters, true);
    Atomic::<u32, Gpu>::from_ptr(passes).fetch_add(p, Ordering::Relaxed);
    block::sync();
    if t < 128 {
        *out.add((block::index_x() * 128 + t) as usize) = *words.add(t as usize);
    }
}

/// Small integers in one global region for the whole grid (`Atomic<_, Gpu>`; the host zeroes
/// it, with the minima at `i16::MAX`). No bit-ownership rounds: many threads share a lane.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic_types_small_gpu(words: *mut u32, iters: u32) {
    let me = global_id();
    small_rounds::<Gpu>(words.cast::<u8>(), me, me, iters, false);
}

/// Half adds in global memory at `Gpu` scope, every step exactly representable and every
/// partial sum exact (the host checks the totals bit for bit). Layout in words: `[0, 32)` 64
/// `F16` lanes (+1.0 each: `fetch_add`, `red_add` or `fetch_sub(-1.0)` by thread), `[32, 96)`
/// 64 `F16x2` ([1.0, -0.5]); on sm_90 also `[96, 224)` 256 `Bf16` lanes (+1.0) and
/// `[224, 480)` 256 `Bf16x2` ([1.0, 0.25]).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic_types_half_gpu(words: *mut u32) {
    let me = global_id();
    let ord = rmw_order(me);
    let h = Atomic::<F16, Gpu>::from_ptr(words.cast::<F16>().add((me % 64) as usize));
    let h2 = Atomic::<F16x2, Gpu>::from_ptr(words.add(32 + (me % 64) as usize).cast::<F16x2>());
    let one = F16::ONE;
    let pair = F16x2::from_f32([1.0, -0.5]);
    match me % 3 {
        0 => {
            h.fetch_add(one, ord);
            h2.fetch_add(pair, ord);
        }
        1 => {
            h.red_add(one, Ordering::Release);
            h2.red_add(pair, Ordering::SeqCst);
        }
        _ => {
            h.fetch_sub(-one, ord);
            h2.fetch_sub(-pair, ord);
        }
    }
    #[cfg(target_feature = "sm_90")]
    {
        use ptx_sync::{Bf16, Bf16x2};
        let b =
            Atomic::<Bf16, Gpu>::from_ptr(words.add(96).cast::<Bf16>().add((me % 256) as usize));
        let b2 =
            Atomic::<Bf16x2, Gpu>::from_ptr(words.add(224 + (me % 256) as usize).cast::<Bf16x2>());
        let bpair = Bf16x2::from_f32([1.0, 0.25]);
        if me.is_multiple_of(2) {
            b.fetch_add(Bf16::ONE, ord);
            b2.fetch_add(bpair, ord);
        } else {
            b.red_add(Bf16::ONE, Ordering::Relaxed);
            b2.red_add(bpair, Ordering::Release);
        }
    }
}

/// Half adds in shared memory at `Cta` scope: 16 `F16` lanes (8 words) per block, thread `t`
/// adds 0.5 to lane `t % 16` `iters` times (a word loop and the native `atom.add.noftz.f16` on
/// neighbouring halves of one word), then the words go to `out[block * 8 ..]`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic_types_half_cta(out: *mut u32, iters: u32) {
    let t = block::thread_x();
    let words = block::dynamic_shared_memory().cast::<u32>();
    if t < 8 {
        *words.add(t as usize) = 0;
    }
    block::sync();
    let h = Atomic::<F16, Cta>::from_ptr(words.cast::<F16>().add((t % 16) as usize));
    let half = F16::from_f32(0.5);
    for i in 0..iters {
        if (t + i).is_multiple_of(2) {
            h.fetch_add(half, rmw_order(t + i));
        } else {
            // The same add as a compare-exchange loop on the bits (the word loop).
            h.update(rmw_order(t + i), Ordering::Relaxed, |x| {
                F16::from_f32(x.to_f32() + 0.5)
            });
        }
    }
    block::sync();
    if t < 8 {
        *out.add((block::index_x() * 8 + t) as usize) = *words.add(t as usize);
    }
}

/// Float min/max by compare-exchange loop (PTX has no scalar float `atom.min/max`), grid-wide
/// at `Gpu` scope. Words (the host initializes them): [0] f32 min (from +inf), [1] f32 max
/// (from -inf), [2..4] f64 min, [4..6] f64 max, [6] `F16` min in its low half with a neighbour
/// `F16` max in the high half (a lost neighbour update shows), [7] `Bf16x2` max (lane 0: the
/// value, lane 1: its negation), [8] f32 from +0.0 with every thread `fetch_min(±0.0)`: must
/// end at -0.0, [9] f32 from -0.0 with `fetch_max(±0.0)`: must end at +0.0.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic_types_float_minmax(words: *mut u32) {
    let me = global_id();
    let ord = rmw_order(me);
    let x = minmax_value(me);
    Atomic::<f32, Gpu>::from_ptr(words.cast::<f32>()).fetch_min(x, ord);
    Atomic::<f32, Gpu>::from_ptr(words.add(1).cast::<f32>()).fetch_max(x, ord);
    Atomic::<f64, Gpu>::from_ptr(words.add(2).cast::<f64>()).fetch_min(x as f64, ord);
    Atomic::<f64, Gpu>::from_ptr(words.add(4).cast::<f64>()).fetch_max(x as f64, ord);
    let h = F16::from_f32(x);
    Atomic::<F16, Gpu>::from_ptr(words.add(6).cast::<F16>()).fetch_min(h, ord);
    Atomic::<F16, Gpu>::from_ptr(words.add(6).cast::<F16>().add(1)).fetch_max(h, ord);
    let b = ptx_sync::Bf16x2::from_f32([x, -x]);
    Atomic::<ptx_sync::Bf16x2, Gpu>::from_ptr(words.add(7).cast()).fetch_max(b, ord);
    let zero = if me.is_multiple_of(2) { 0.0 } else { -0.0 };
    Atomic::<f32, Gpu>::from_ptr(words.add(8).cast::<f32>()).fetch_min(zero, ord);
    Atomic::<f32, Gpu>::from_ptr(words.add(9).cast::<f32>()).fetch_max(zero, ord);
}

/// sm_90 vector atomics on global memory (word offsets; the host zeroes the sums and sets the
/// min/max starts): `[0, 32)` 16 `AtomicF32x2` (+[1.0, 0.25]), `[32, 96)` 16 `AtomicF32x4`
/// (+[1.0, 2.0, 0.5, -0.25]), `[96, 352)` 64 `AtomicF16x8` (+`HALF_STEPS`), `[352, 1376)` 256
/// `AtomicBf16x8` (+`HALF_STEPS`), `[1376, 1392)` 8 `AtomicF16x4` minima, `[1392, 1408)` 8
/// maxima (lane `j` offered `minmax_value(me ^ j)`), `[1408, 1424)` 8 `AtomicBf16x4` minima
/// and `[1424, 1440)` maxima of `small_value(me, j)`. Even threads use `fetch_*`, odd ones
/// `red_*`.
#[cfg(target_feature = "sm_90")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn atomic_types_vectors(words: *mut u32) {
    use ptx_sync::atomic::{
        AtomicBf16x4, AtomicBf16x8, AtomicF16x4, AtomicF16x8, AtomicF32x2, AtomicF32x4,
    };
    use ptx_sync::Bf16;
    let me = global_id();
    let ord = rmw_order(me);
    let fetch = me.is_multiple_of(2);
    let v2 = AtomicF32x2::<Gpu>::from_ptr(words.add(2 * (me % 16) as usize).cast());
    let v4 = AtomicF32x4::<Gpu>::from_ptr(words.add(32 + 4 * (me % 16) as usize).cast());
    let h8 = AtomicF16x8::<Gpu>::from_ptr(words.add(96 + 4 * (me % 64) as usize).cast());
    let b8 = AtomicBf16x8::<Gpu>::from_ptr(words.add(352 + 4 * (me % 256) as usize).cast());
    let hmin = AtomicF16x4::<Gpu>::from_ptr(words.add(1376 + 2 * (me % 8) as usize).cast());
    let hmax = AtomicF16x4::<Gpu>::from_ptr(words.add(1392 + 2 * (me % 8) as usize).cast());
    let bmin = AtomicBf16x4::<Gpu>::from_ptr(words.add(1408 + 2 * (me % 8) as usize).cast());
    let bmax = AtomicBf16x4::<Gpu>::from_ptr(words.add(1424 + 2 * (me % 8) as usize).cast());
    let hsteps = HALF_STEPS.map(F16::from_f32);
    let bsteps = HALF_STEPS.map(Bf16::from_f32);
    let hv: [F16; 4] = core::array::from_fn(|j| F16::from_f32(minmax_value(me ^ j as u32)));
    let bv: [Bf16; 4] = core::array::from_fn(|j| Bf16::from_f32(small_value(me, j as u32)));
    if fetch {
        v2.fetch_add([1.0, 0.25], ord);
        v4.fetch_add([1.0, 2.0, 0.5, -0.25], ord);
        h8.fetch_add(hsteps, ord);
        b8.fetch_add(bsteps, ord);
        hmin.fetch_min(hv, ord);
        hmax.fetch_max(hv, ord);
        bmin.fetch_min(bv, ord);
        bmax.fetch_max(bv, ord);
    } else {
        let red = if me % 4 == 1 {
            Ordering::Release
        } else {
            Ordering::Relaxed
        };
        v2.red_add([1.0, 0.25], red);
        v4.red_add([1.0, 2.0, 0.5, -0.25], red);
        h8.red_add(hsteps, red);
        b8.red_add(bsteps, Ordering::SeqCst);
        hmin.red_min(hv, red);
        hmax.red_max(hv, red);
        bmin.red_min(bv, red);
        bmax.red_max(bv, red);
    }
}
