//! 8- and 16-bit integer atomics: `Atomic<u8 | i8 | u16 | i16, S>` ([`AtomicU8`],
//! [`AtomicI8`], [`AtomicU16`], [`AtomicI16`]).
//!
//! PTX loads and stores bytes and half-words natively (`ld/st.<sem>.<scope>.b8` / `.b16`) and
//! has exactly one read-modify-write narrower than 32 bits: `atom.cas.b16` (sm_70, PTX ISA
//! 6.3). There is no `atom.exch.b16`, no 8-bit `atom` of any kind, and no 8- or 16-bit
//! `atom.add/and/or/xor/min/max` or `red` (PTX ISA, `atom`, table "Atom Scalar Type
//! Operations"). Every other read-modify-write is therefore emulated, as libcu++ does, by a
//! compare-exchange loop on the aligned 32-bit word that contains the value:
//!
//! | operation | `u8`, `i8` | `u16`, `i16` |
//! |-----------|------------|--------------|
//! | `load` | `ld.<sem>.S.b8` | `ld.<sem>.S.b16` |
//! | `store` | `st.<sem>.S.b8` | `st.<sem>.S.b16` |
//! | `compare_exchange(_weak)` | word loop: `ld.<failure>.S.b32`, then `atom.<sem>.S.cas.b32` while the byte still equals `current` | `atom.<sem>.S.cas.b16` (one instruction) |
//! | `swap`, `fetch_add/sub/and/or/xor/nand/min/max` | word loop: `ld.relaxed.S.b32`, then `atom.<sem>.S.cas.b32` until no thread changed the word in between | the same |
//! | `fetch_update`, `try_update`, `update` | `ld.<fetch>.S.b32`, then `atom.<sem>.S.cas.b32` per attempt | the same |
//!
//! (SeqCst: `fence.sc.S` before the load or the `atom`, as in [`Atomic`]'s table; the loop's
//! CAS carries the order, its first guess is relaxed.)
//!
//! **The emulated operations are slower** than the 32-bit ones: a load, then one
//! compare-exchange per attempt, and under contention every lost race costs another round trip
//! to memory, where a native `atom.add` never retries. Threads updating *different* bytes of the
//! same word contend too (they share the word). Use `Atomic<u32, S>` for hot counters; use the
//! small types where the memory layout needs them (packed histograms, byte flags).
//!
//! `swap` on `u16` is a word loop too: without `atom.exch.b16` it would be an `atom.cas.b16`
//! loop, and ptxas itself expands each `atom.cas.b16` into a 32-bit CAS loop on the containing
//! word (nvdisasm of sm_90 code: `ATOM.E.CAS` on the aligned word, `EIATTR_ATOM16_EMUL_INSTR_REG_MAP`),
//! so a word loop is one loop instead of two nested ones. That also means that all the
//! read-modify-writes on a 16-bit value meet as 32-bit compare-and-swaps on one word in the
//! hardware, whichever form the PTX used.
//!
//! # The containing word: a safety rule
//!
//! On the GPU, the emulated operations read the whole aligned 4-byte word around the value and
//! write it back with the neighbouring bytes unchanged (the compare-and-swap fails, and retries,
//! if any byte of the word changed in between, so no neighbour's update is lost). So **the
//! aligned word that contains the value must be valid memory of the same kind** (global or
//! shared) for reads and writes, not just the value's own bytes. Allocations from `cudaMalloc`
//! (and a module's statics) are at least 256-byte aligned and padded, so every byte in one
//! qualifies; a shared-memory array qualifies when its size is a multiple of 4 bytes.
//! Neighbouring bytes that other threads write at the same time should be written atomically
//! too: the PTX memory model states its axioms for operations that overlap completely, and a
//! race between accesses of different widths (a *mixed-size* race) is outside them. Every
//! read-modify-write of a value here is a 32-bit compare-and-swap of its word in the hardware
//! (the `atom.cas.b16` too, in ptxas 13's sm_90 output), and libcu++ emulates its 8- and 16-bit
//! read-modify-writes the same way; the native loads and stores do meet those compare-and-swaps
//! at a different width, as libcu++'s `ld.b16` / `st.b16` do.
//!
//! On the host the same methods are core's `AtomicU8`, `AtomicI8`, `AtomicU16`, `AtomicI16`
//! (loom's under `--cfg loom`), which need only the value's own bytes.

use super::update::update_impls;
use super::waiting::wait_impls;
crate::backend::cfg_gpu! {
    use super::AtomicValue;
}
use super::{Atomic, AtomicAccess, AtomicAdd, AtomicBitwise, AtomicMinMax};
use crate::backend::on_target;
use crate::order;
use crate::scope::Scope;
use core::sync::atomic::Ordering;

/// `Atomic<u8, S>`: see the [`small`](self) module for which operations are emulated.
pub type AtomicU8<S> = Atomic<u8, S>;
/// `Atomic<i8, S>`: see the [`small`](self) module for which operations are emulated.
pub type AtomicI8<S> = Atomic<i8, S>;
/// `Atomic<u16, S>`: see the [`small`](self) module for which operations are emulated.
pub type AtomicU16<S> = Atomic<u16, S>;
/// `Atomic<i16, S>`: see the [`small`](self) module for which operations are emulated.
pub type AtomicI16<S> = Atomic<i16, S>;

crate::backend::cfg_gpu! {
    /// The aligned 32-bit word that holds the value at `p`, and the value's bit offset in it
    /// (nvptx is little-endian: the byte at the lowest address is bits 0..8).
    #[inline(always)]
    fn containing_word<T>(p: *mut T) -> (*mut u32, u32) {
        let offset = p as usize & 3;
        (
            p.cast::<u8>().wrapping_sub(offset).cast::<u32>(),
            offset as u32 * 8,
        )
    }
}

crate::backend::cfg_gpu_or_test! {
    /// The lane of `word` at bit `shift`, `mask` wide.
    #[inline(always)]
    const fn extract(word: u32, shift: u32, mask: u32) -> u32 {
        (word >> shift) & mask
    }

    /// `word` with its lane at `shift` replaced by `lane`, every other bit kept.
    #[inline(always)]
    const fn splice(word: u32, shift: u32, mask: u32, lane: u32) -> u32 {
        (word & !(mask << shift)) | ((lane & mask) << shift)
    }

    /// A read-modify-write of one lane of `word`: a relaxed first guess, then a compare-and-swap
    /// of the whole word carrying `order`, until no thread changed the word in between. The
    /// successful CAS is the operation (its `.sem` is the order's); the guesses need no order.
    /// Returns the lane's previous bits.
    #[inline(always)]
    fn lane_rmw<S: Scope>(
        word: &Atomic<u32, S>,
        shift: u32,
        mask: u32,
        order: Ordering,
        mut f: impl FnMut(u32) -> u32,
    ) -> u32 {
        let mut old = u32::load(word, Ordering::Relaxed);
        loop {
            let lane = extract(old, shift, mask);
            let new = splice(old, shift, mask, f(lane));
            match u32::compare_exchange(word, old, new, order, Ordering::Relaxed) {
                Ok(_) => return lane,
                Err(actual) => old = actual,
            }
        }
    }

    /// `fetch_update` on one lane of `word`: the first read carries `fetch_order` (so a `None` from
    /// `f` returns a value read with it), each attempt is a CAS of the word with both orders merged.
    /// `f` runs again only when the lane itself changed, not when only a neighbour did.
    #[inline(always)]
    #[track_caller]
    fn lane_update<S: Scope>(
        word: &Atomic<u32, S>,
        shift: u32,
        mask: u32,
        set_order: Ordering,
        fetch_order: Ordering,
        mut f: impl FnMut(u32) -> Option<u32>,
    ) -> Result<u32, u32> {
        // A Release or AcqRel `fetch_order` panics here, in the load, as core's `fetch_update` does.
        let mut old = u32::load(word, fetch_order);
        let mut lane = extract(old, shift, mask);
        let mut next = match f(lane) {
            Some(n) => n,
            None => return Err(lane),
        };
        loop {
            match u32::compare_exchange(
                word,
                old,
                splice(old, shift, mask, next),
                set_order,
                fetch_order,
            ) {
                Ok(_) => return Ok(lane),
                Err(actual) => {
                    old = actual;
                    let now = extract(actual, shift, mask);
                    if now != lane {
                        lane = now;
                        next = match f(lane) {
                            Some(n) => n,
                            None => return Err(lane),
                        };
                    }
                }
            }
        }
    }
}

crate::backend::cfg_gpu! {
    /// An 8- or 16-bit integer as a lane of its containing 32-bit word (the GPU's word loops).
    trait Narrow: AtomicValue {
        /// All ones over the value's width, as a `u32` lane mask.
        const LANE: u32;
        /// The value in the low bits of a lane.
        fn from_lane(lane: u32) -> Self;
        /// The value's bits as a lane (zero-extended).
        fn to_lane(self) -> u32;
    }

    /// The containing word of the value `a` holds, and the value's bit offset in it.
    #[inline(always)]
    fn word<T: AtomicValue, S: Scope>(a: &Atomic<T, S>) -> (&Atomic<u32, S>, u32) {
        let (w, shift) = containing_word(a.as_ptr());
        // SAFETY: the aligned word around a valid value is valid memory of the same kind (the
        // rule in the module docs and `from_ptr`); it is 4-byte aligned.
        (unsafe { Atomic::from_ptr(w) }, shift)
    }

    /// The emulated read-modify-write: [`lane_rmw`] on the containing word.
    #[inline(always)]
    fn rmw<T: Narrow, S: Scope>(a: &Atomic<T, S>, order: Ordering, f: impl Fn(T) -> T) -> T {
        let (word, shift) = word(a);
        T::from_lane(lane_rmw(word, shift, T::LANE, order, |x| {
            f(T::from_lane(x)).to_lane()
        }))
    }
}

/// The trait impls of one 8/16-bit integer `$t` (unsigned twin `$u`, bit type `$b`):
/// `cas = native` for `atom.cas.b16`, `cas = word` for the 8-bit word loop.
macro_rules! small_atomic {
    ($t:ident, $u:ident, $b:literal, cas = $cas:ident) => {
        crate::backend::cfg_gpu! {
            impl Narrow for $t {
                const LANE: u32 = $u::MAX as u32;

                #[inline(always)]
                fn from_lane(lane: u32) -> $t {
                    lane as $u as $t
                }

                #[inline(always)]
                fn to_lane(self) -> u32 {
                    self as $u as u32
                }
            }
        }

        impl AtomicAccess for $t {
            #[inline(always)]
            #[track_caller]
            fn load<S: Scope>(a: &Atomic<Self, S>, order: Ordering) -> $t {
                on_target!(sem = order::load(order);
                    gpu: with_load_sem!(S, sem; ptx_ld!($b, reg16, u16, a.as_ptr())) as $u as $t,
                    host: a.host().load(order))
            }

            #[inline(always)]
            #[track_caller]
            fn store<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) {
                on_target!(sem = order::store(order);
                    gpu: with_store_sem!(S, sem; ptx_st!($b, reg16, a.as_ptr(), val as $u as u16)),
                    host: a.host().store(val, order))
            }

            // PTX has no 8/16-bit exchange: a loop on the containing word.
            #[inline(always)]
            fn swap<S: Scope>(a: &Atomic<Self, S>, val: $t, order: Ordering) -> $t {
                on_target!(sem = order::rmw(order);
                    gpu: { rmw(a, order, |_| val) },
                    host: a.host().swap(val, order))
            }

            small_atomic!(@cas $cas, $t, $u);

            #[inline(always)]
            #[track_caller]
            fn fetch_update<S: Scope, F>(a: &Atomic<Self, S>, set_order: Ordering, fetch_order: Ordering, mut f: F)
                -> Result<$t, $t>
            where
                F: FnMut($t) -> Option<$t>,
            {
                on_target!(
                    gpu: {
                        let (word, shift) = word(a);
                        lane_update(word, shift, <$t as Narrow>::LANE, set_order, fetch_order,
                                    |x| f(x as $u as $t).map(|v| v as $u as u32))
                            .map(|v| v as $u as $t)
                            .map_err(|v| v as $u as $t)
                    },
                    host: {
                        // core's loop, written out: `fetch_update` is deprecated from Rust 1.99
                        // and `try_update` is newer than this crate's MSRV (loom has neither
                        // rename).
                        let mut prev = a.host().load(fetch_order);
                        loop {
                            let Some(next) = f(prev) else { break Err(prev) };
                            match a.host().compare_exchange_weak(prev, next, set_order, fetch_order) {
                                Ok(v) => break Ok(v),
                                Err(actual) => prev = actual,
                            }
                        }
                    })
            }

            update_impls!($t);
            wait_impls!($t, |a, b| a == b);
        }

        impl AtomicAdd for $t {
            small_atomic!(@rmw $t, fetch_add, |old, val| old.wrapping_add(val));
            small_atomic!(@rmw $t, fetch_sub, |old, val| old.wrapping_sub(val));
        }

        impl AtomicBitwise for $t {
            small_atomic!(@rmw $t, fetch_and, |old, val| old & val);
            small_atomic!(@rmw $t, fetch_or, |old, val| old | val);
            small_atomic!(@rmw $t, fetch_xor, |old, val| old ^ val);
            small_atomic!(@rmw $t, fetch_nand, |old, val| !(old & val));
        }

        impl AtomicMinMax for $t {
            small_atomic!(@rmw $t, fetch_min, |old, val| Ord::min(old, val));
            small_atomic!(@rmw $t, fetch_max, |old, val| Ord::max(old, val));
        }
    };

    // 16 bits: PTX's one narrow RMW, `atom.cas.b16`.
    (@cas native, $t:ident, $u:ident) => {
        #[inline(always)]
        #[track_caller]
        fn compare_exchange<S: Scope>(a: &Atomic<Self, S>, current: $t, new: $t, success: Ordering, failure: Ordering)
            -> Result<$t, $t>
        {
            let prev: $t = on_target!(sem = order::compare_exchange(success, failure);
                gpu: with_rmw_sem!(S, sem; ptx_cas!("b16", reg16, u16, a.as_ptr(),
                                                    current as $u as u16, new as $u as u16)) as $u as $t,
                host: { match a.host().compare_exchange(current, new, success, failure) {
                            Ok(v) | Err(v) => v } });
            if prev == current { Ok(prev) } else { Err(prev) }
        }
    };

    // 8 bits: a loop on the containing word, while the byte equals `current`.
    (@cas word, $t:ident, $u:ident) => {
        #[inline(always)]
        #[track_caller]
        fn compare_exchange<S: Scope>(a: &Atomic<Self, S>, current: $t, new: $t, success: Ordering, failure: Ordering)
            -> Result<$t, $t>
        {
            on_target!(sem = order::compare_exchange(success, failure);
                gpu: {
                    let (word, shift) = word(a);
                    let (c, n) = (current as $u as u32, new as $u as u32);
                    lane_update(word, shift, <$t as Narrow>::LANE, success, failure, |x| (x == c).then_some(n))
                        .map(|v| v as $u as $t)
                        .map_err(|v| v as $u as $t)
                },
                host: a.host().compare_exchange(current, new, success, failure))
        }
    };

    // A word loop on the GPU, core's method of the same name on the host.
    (@rmw $t:ident, $name:ident, |$old:ident, $val:ident| $f:expr) => {
        #[inline(always)]
        fn $name<S: Scope>(a: &Atomic<Self, S>, $val: $t, order: Ordering) -> $t {
            on_target!(sem = order::rmw(order);
                gpu: { rmw(a, order, |$old| $f) },
                host: a.host().$name($val, order))
        }
    };
}

small_atomic!(u8, u8, "b8", cas = word);
small_atomic!(i8, u8, "b8", cas = word);
small_atomic!(u16, u16, "b16", cas = native);
small_atomic!(i16, u16, "b16", cas = native);

#[cfg(test)]
mod tests {
    //! The GPU's word loops, run on the host against a real `Atomic<u32>` word: threads that
    //! each own one lane of a shared word must never disturb their neighbours.
    extern crate std;
    use super::{extract, lane_rmw, lane_update, splice};
    use crate::atomic::Atomic;
    use crate::scope::Gpu;
    use core::sync::atomic::Ordering::*;
    use std::vec::Vec;

    #[test]
    fn splice_replaces_only_its_lane() {
        assert_eq!(splice(0xaabb_ccdd, 8, 0xff, 0x11), 0xaabb_11dd);
        assert_eq!(splice(0xaabb_ccdd, 16, 0xffff, 0x1_2345), 0x2345_ccdd);
        assert_eq!(extract(0xaabb_ccdd, 24, 0xff), 0xaa);
        assert_eq!(extract(0xaabb_ccdd, 16, 0xffff), 0xaabb);
    }

    #[test]
    fn byte_lanes_of_one_word_count_exactly() {
        // Eight threads, two on each byte lane, 50,000 rounds of an increment and a
        // fetch_update each; lane i starts at i. A loop that writes a stale neighbour byte
        // loses other lanes' counts; one that reuses its update after its own lane changed
        // loses the other owner's.
        const N: u32 = 50_000;
        let word = Atomic::<u32, Gpu>::new(0x0302_0100);
        std::thread::scope(|s| {
            for t in 0..8u32 {
                let (word, lane) = (&word, t % 4);
                s.spawn(move || {
                    for _ in 0..N {
                        lane_rmw(word, lane * 8, 0xff, AcqRel, |x| x.wrapping_add(1));
                        let _ = lane_update(word, lane * 8, 0xff, Release, Relaxed, |x| {
                            Some(x.wrapping_add(1))
                        });
                    }
                });
            }
        });
        let w = word.load(Relaxed);
        let want: Vec<u32> = (0..4).map(|i| (i + 4 * N) % 256).collect();
        let got: Vec<u32> = (0..4).map(|i| extract(w, i * 8, 0xff)).collect();
        assert_eq!(got, want, "word {w:#010x}");
    }

    #[test]
    fn half_word_lanes_and_failed_compare_exchange() {
        let word = Atomic::<u32, Gpu>::new(0);
        std::thread::scope(|s| {
            for lane in 0..2u32 {
                let word = &word;
                s.spawn(move || {
                    for _ in 0..5000 {
                        lane_rmw(word, lane * 16, 0xffff, Relaxed, |x| x + 3);
                    }
                });
            }
        });
        assert_eq!(word.load(Relaxed), 15000 << 16 | 15000);
        // The compare-exchange on a lane: a mismatch returns the lane and writes nothing.
        assert_eq!(
            lane_update(&word, 16, 0xffff, AcqRel, Acquire, |x| (x == 1)
                .then_some(2)),
            Err(15000)
        );
        assert_eq!(
            lane_update(&word, 0, 0xffff, AcqRel, Acquire, |x| (x == 15000)
                .then_some(7)),
            Ok(15000)
        );
        assert_eq!(word.load(Relaxed), 15000 << 16 | 7);
    }
}
