//! Kernels of the atomics integration tests (tests/src/cases/atomics.rs).

use crate::{global_id, rmw_order};
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};
#[cfg(target_feature = "sm_90")]
use ptx_sync::Cluster;
use ptx_sync::{Atomic, Cta, Gpu, Ordering, Scope, Sys};

include!("../../mix.rs");

/// Orders a `red` accepts.
#[inline(always)]
fn red_order(code: u32) -> Ordering {
    match code % 3 {
        0 => Ordering::Relaxed,
        1 => Ordering::Release,
        _ => Ordering::SeqCst,
    }
}

/// The word a thread contends on: its block's own word (`per_block`, for `Cta`/`Cluster`
/// scope) or one word for the whole grid.
#[inline(always)]
unsafe fn word<T>(words: *mut T, per_block: u32) -> *mut T {
    if per_block != 0 {
        words.add(_block_idx_x() as usize * BLOCK_STRIDE)
    } else {
        words
    }
}

/// `atom.inc` / `atom.dec` exist for u32 only: the other types trap if asked.
trait IncDec {
    fn inc_dec(&self, op: u32, limit: u32, order: Ordering);
}

impl<S: Scope> IncDec for Atomic<u32, S> {
    #[inline(always)]
    fn inc_dec(&self, op: u32, limit: u32, order: Ordering) {
        if op == op::FETCH_INC {
            self.fetch_inc(limit, order);
        } else {
            self.fetch_dec(limit, order);
        }
    }
}

macro_rules! no_inc_dec {
    ($($t:ty),*) => {$(
        impl<S: Scope> IncDec for Atomic<$t, S> {
            fn inc_dec(&self, _: u32, _: u32, _: Ordering) {
                unsafe { core::arch::nvptx::trap() }
            }
        }
    )*};
}
no_inc_dec!(i32, u64, i64);

macro_rules! contend_int {
    ($name:ident, $t:ty, $S:ty) => {
        /// Every thread applies `op` `iters` times to its word; `acc[thread]` gets what the
        /// host needs to check the result (`SWAP`: the sum of swapped-out values;
        /// `FETCH_OR_AND`: returned values as expected, plus `<< 16` the calls that found
        /// their bit clear in the group's first word).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            words: *mut $t,
            op: u32,
            iters: u32,
            per_block: u32,
            order: u32,
            limit: u32,
            acc: *mut $t,
        ) {
            let base = word(words, per_block);
            let a = Atomic::<$t, $S>::from_ptr(base);
            let me = global_id();
            let ord = rmw_order(order);
            let mut sum: $t = 0;
            let (mut passes, mut firsts) = (0u32, 0u32);
            for i in 0..iters {
                let x = mix(me, i) as $t;
                match op {
                    op::FETCH_ADD => {
                        a.fetch_add(1, ord);
                    }
                    op::FETCH_SUB => {
                        a.fetch_sub(1, ord);
                    }
                    op::CAS_LOOP_ADD => {
                        let _ = a.fetch_update(ord, Ordering::Relaxed, |v| Some(v.wrapping_add(1)));
                    }
                    op::FETCH_XOR => {
                        a.fetch_xor(x, ord);
                    }
                    op::FETCH_MIN => {
                        a.fetch_min(x, ord);
                    }
                    op::FETCH_MAX => {
                        a.fetch_max(x, ord);
                    }
                    op::RED_ADD => a.red_add(1, red_order(order)),
                    op::SWAP => sum = sum.wrapping_add(a.swap(x, ord)),
                    op::FETCH_OR_AND => {
                        // This thread owns one bit of one set/clear word (after the group's
                        // first word; no other thread of the group owns it): set it, then
                        // clear it, each RMW returning the bit as only its owner left it.
                        // Between the two, the same bit goes into the group's first word by
                        // `fetch_or` alone (shared with the threads owning that bit position
                        // in other set/clear words): exactly one call per bit position returns
                        // it clear. The host checks the counts and the words left.
                        let (index, n) = if per_block != 0 {
                            (_thread_idx_x() as u32, _block_dim_x() as u32)
                        } else {
                            (me, (_grid_dim_x() * _block_dim_x()) as u32)
                        };
                        let (w, b) = or_and_slot(index, n, <$t>::BITS);
                        let bit: $t = 1 << b;
                        let own = Atomic::<$t, $S>::from_ptr(base.add(1 + w as usize));
                        passes += (own.fetch_or(bit, ord) & bit == 0) as u32;
                        firsts += (a.fetch_or(bit, ord) & bit == 0) as u32;
                        passes += (own.fetch_and(!bit, ord) & bit != 0) as u32;
                    }
                    op::FETCH_INC | op::FETCH_DEC => a.inc_dec(op, limit, ord),
                    _ => core::arch::nvptx::trap(),
                }
            }
            if op == op::FETCH_OR_AND {
                sum = (passes | firsts << 16) as $t;
            }
            *acc.add(me as usize) = sum;
        }
    };
}

/// `contend_int!` for one type at the four scopes (cluster scope is sm_90+).
macro_rules! contend_int_scopes {
    ($t:ty: $cta:ident, $cluster:ident, $gpu:ident, $sys:ident) => {
        contend_int!($cta, $t, Cta);
        #[cfg(target_feature = "sm_90")]
        contend_int!($cluster, $t, Cluster);
        contend_int!($gpu, $t, Gpu);
        contend_int!($sys, $t, Sys);
    };
}

contend_int_scopes!(u32: contend_u32_cta, contend_u32_cluster, contend_u32_gpu, contend_u32_sys);
contend_int_scopes!(i32: contend_i32_cta, contend_i32_cluster, contend_i32_gpu, contend_i32_sys);
contend_int_scopes!(u64: contend_u64_cta, contend_u64_cluster, contend_u64_gpu, contend_u64_sys);
contend_int_scopes!(i64: contend_i64_cta, contend_i64_cluster, contend_i64_gpu, contend_i64_sys);

macro_rules! contend_float {
    ($name:ident, $t:ty, $S:ty) => {
        /// Every thread adds `float_step(thread)` `iters` times, with `fetch_add` (`use_red`
        /// 0) or `red_add` (1).
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            words: *mut $t,
            iters: u32,
            per_block: u32,
            use_red: u32,
        ) {
            let a = Atomic::<$t, $S>::from_ptr(word(words, per_block));
            let step = float_step(global_id()) as $t;
            for _ in 0..iters {
                if use_red != 0 {
                    a.red_add(step, Ordering::Relaxed);
                } else {
                    a.fetch_add(step, Ordering::Relaxed);
                }
            }
        }
    };
}

/// `contend_float!` for one type at Cta, Gpu and Sys scope.
macro_rules! contend_float_scopes {
    ($t:ty: $cta:ident, $gpu:ident, $sys:ident) => {
        contend_float!($cta, $t, Cta);
        contend_float!($gpu, $t, Gpu);
        contend_float!($sys, $t, Sys);
    };
}

contend_float_scopes!(f32: contend_f32_cta, contend_f32_gpu, contend_f32_sys);
contend_float_scopes!(f64: contend_f64_cta, contend_f64_gpu, contend_f64_sys);

/// Each `fetch_add` on one grid-wide counter returns a ticket; `seen[ticket]` counts how often
/// each ticket was handed out. Every ticket in 0..threads*iters must be seen exactly once.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn tickets_gpu(counter: *mut u32, seen: *mut u32, iters: u32) {
    let c = Atomic::<u32, Gpu>::from_ptr(counter);
    for _ in 0..iters {
        let t = c.fetch_add(1, Ordering::Relaxed);
        Atomic::<u32, Gpu>::from_ptr(seen.add(t as usize)).fetch_add(1, Ordering::Relaxed);
    }
}
