//! TEMPORARY experiments (bench case names `x/...`, Rust only): variants of the block-, latch-
//! and grid-barrier rows that isolate where their time goes. Not part of the table.

use crate::{bb_right, bb_slot, bb_report};
use core::arch::asm;
use ptx_sync::{
    block, fence, volatile, Atomic, Barrier, Cta, Gpu, GridBarrier, Latch, NanoSleep,
    Ordering::*, Spin,
};

const FLIP: u32 = 0x8000_0000;

// ---- shared-state-space accesses (what nvcc emits for `__shared__` arrays) -----------------

/// The 32-bit shared-window address of `buf[phase & 1][t]` (same layout as `bb_slot`).
#[inline(always)]
fn smem_slot(phase: i32, t: u32) -> u32 {
    let base: u32;
    unsafe {
        asm!("mov.u32 {b}, ptx_sync_dynamic_smem;", b = out(reg32) base,
             options(nostack, nomem, pure))
    };
    base + 16 + 4 * ((phase & 1) as u32 * block::dim_x() + t)
}

#[inline(always)]
unsafe fn st_shared(a: u32, v: i32) {
    asm!("st.shared.b32 [{a}], {v};", a = in(reg32) a, v = in(reg32) v, options(nostack));
}

#[inline(always)]
unsafe fn ld_shared(a: u32) -> i32 {
    let v: i32;
    asm!("ld.shared.b32 {v}, [{a}];", a = in(reg32) a, v = out(reg32) v, options(nostack));
    v
}

/// `block_barrier/syncthreads` with `st.shared`/`ld.shared` instead of generic accesses.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn x__bb__sync_shared(iters: i32, errors: *mut u32) {
    let (mut err, right) = (0, bb_right());
    for i in 0..iters {
        st_shared(smem_slot(i, block::thread_x()), i);
        block::sync();
        err += (ld_shared(smem_slot(i, right)) != i) as u32;
    }
    bb_report(errors, err);
}

/// `block_barrier/syncthreads` with `bar.sync 0` (the `.aligned` form nvcc emits) and
/// generic accesses.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn x__bb__sync_aligned(iters: i32, errors: *mut u32) {
    let (mut err, right) = (0, bb_right());
    for i in 0..iters {
        bb_slot(i, block::thread_x()).write(i);
        asm!("bar.sync 0;", options(nostack));
        err += (bb_slot(i, right).read() != i) as u32;
    }
    bb_report(errors, err);
}

/// `block_barrier/cuda_barrier` with shared-state-space accesses.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn x__bb__mbar_shared(iters: i32, errors: *mut u32) {
    let bar = ptx_sync::BlockBarrier::from_ptr(block::dynamic_shared_memory().cast());
    if block::thread_x() == 0 {
        bar.init(block::dim_x());
    }
    block::sync();
    let (mut err, right) = (0, bb_right());
    for i in 0..iters {
        st_shared(smem_slot(i, block::thread_x()), i);
        bar.arrive_and_wait();
        err += (ld_shared(smem_slot(i, right)) != i) as u32;
    }
    bb_report(errors, err);
}

/// `block_barrier/split_arrive_wait` with shared-state-space accesses.
#[cfg(target_feature = "sm_80")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn x__bb__split_shared(iters: i32, errors: *mut u32, sink: *mut f32) {
    let bar = ptx_sync::BlockBarrier::from_ptr(block::dynamic_shared_memory().cast());
    if block::thread_x() == 0 {
        bar.init(block::dim_x());
    }
    block::sync();
    let (mut err, right) = (0, bb_right());
    let mut acc = block::thread_x() as f32;
    for i in 0..iters {
        st_shared(smem_slot(i, block::thread_x()), i);
        let token = bar.arrive();
        for _ in 0..16 {
            acc = core::f32::math::mul_add(acc, 0.999, 1.0);
        }
        bar.wait(token);
        err += (ld_shared(smem_slot(i, right)) != i) as u32;
    }
    bb_report(errors, err);
    if acc == -1.0 {
        *sink = acc;
    }
}

/// `block_barrier/generic` with `Barrier<Cta, Spin>`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn x__bb__generic_spin(iters: i32, errors: *mut u32) {
    let bar = Barrier::<Cta, Spin>::from_ptr(block::dynamic_shared_memory().cast());
    if block::thread_x() == 0 {
        bar.init(block::dim_x());
    }
    block::sync();
    let (mut err, right) = (0, bb_right());
    for i in 0..iters {
        bb_slot(i, block::thread_x()).write(i);
        bar.arrive_and_wait();
        err += (bb_slot(i, right).read() != i) as u32;
    }
    bb_report(errors, err);
}

// ---- latch ----------------------------------------------------------------------------------

macro_rules! latch_kernel {
    ($name:ident, |$l:ident| $arrive_and_wait:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            latches: *mut u32,
            arrived: *mut u32,
            rounds: i32,
            errors: *mut u32,
        ) {
            let count = Atomic::<u32, Gpu>::from_ptr(arrived);
            let err = Atomic::<u32, Gpu>::from_ptr(errors);
            for r in 0..rounds as u32 {
                block::sync();
                if block::thread_x() == 0 {
                    count.fetch_add(1, Relaxed);
                    let $l = latches.add(r as usize);
                    $arrive_and_wait;
                    if count.load(Relaxed) < (r + 1) * block::grid_x() {
                        err.fetch_add(1, Relaxed);
                    }
                }
                block::sync();
            }
        }
    };
}

latch_kernel!(x__latch__spin, |l| Latch::<Gpu, Spin>::from_ptr(l)
    .arrive_and_wait());
latch_kernel!(x__latch__ns_8_128, |l| Latch::<Gpu, NanoSleep<8, 128>>::from_ptr(l)
    .arrive_and_wait());
// count_down as the Latch does, then relaxed polling and one acquire fence.
latch_kernel!(x__latch__relaxed_poll, |l| {
    Latch::<Gpu, Spin>::from_ptr(l).count_down(1);
    let a = Atomic::<u32, Gpu>::from_ptr(l);
    while a.load(Relaxed) != 0 {}
    fence::<Gpu>(Acquire);
});
// libcu++'s shape: one acq_rel RMW (not release), then relaxed polls, acquire on success.
latch_kernel!(x__latch__acqrel_relaxed_poll, |l| {
    let a = Atomic::<u32, Gpu>::from_ptr(l);
    if a.fetch_sub(1, AcqRel) != 1 {
        while a.load(Relaxed) != 0 {}
        fence::<Gpu>(Acquire);
    }
});

// ---- grid barriers --------------------------------------------------------------------------

macro_rules! grid_kernel {
    ($name:ident, |$bar:ident| $sync:expr) => {
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            $bar: *mut u32,
            slots: *mut i32,
            rounds: i32,
            errors: *mut u32,
        ) {
            let (b, nb) = (block::index_x() as usize, block::grid_x() as usize);
            let right = (b + 1) % nb;
            let mut err = 0;
            for r in 0..rounds {
                let row = slots.add((r & 1) as usize * nb);
                if block::thread_x() == 0 {
                    volatile::write_volatile(row.add(b), r);
                }
                $sync;
                if block::thread_x() == 0 {
                    err += (volatile::read_volatile(row.add(right)) != r) as u32;
                }
            }
            bb_report(errors, err);
        }
    };
}

/// GridBarrier's algorithm, polling with relaxed loads and one acquire fence after.
#[inline(always)]
unsafe fn grid_sync_relaxed_poll(word: *mut u32) {
    block::sync();
    if block::thread_x() == 0 {
        let w = Atomic::<u32, Gpu>::from_ptr(word);
        let add = if block::index_x() == 0 {
            FLIP - (block::grid_x() - 1)
        } else {
            1
        };
        let before = w.fetch_add(add, Release);
        while (w.load(Relaxed) ^ before) & FLIP == 0 {}
        fence::<Gpu>(Acquire);
    }
    block::sync();
}

/// A reusable barrier in one word, as libcu++'s `barrier<thread_scope_device>` (no completion):
/// `word[0]` = phase bit 31 | arrivals counting up from `2^31 - n`, `word[1]` = n. The last
/// arrival carries into bit 31 (flips the phase) and re-arms with a relaxed add of `2^31 - n`.
#[inline(always)]
unsafe fn flip_arrive_and_wait(bar: *mut u32, relaxed_poll: bool) {
    let w = Atomic::<u32, Gpu>::from_ptr(bar);
    let old = w.fetch_add(1, AcqRel);
    if (old ^ old.wrapping_add(1)) & FLIP != 0 {
        let n = Atomic::<u32, Gpu>::from_ptr(bar.add(1)).load(Relaxed);
        w.fetch_add(FLIP - n, Relaxed);
    } else if relaxed_poll {
        while (w.load(Relaxed) ^ old) & FLIP == 0 {}
        fence::<Gpu>(Acquire);
    } else {
        while (w.load(Acquire) ^ old) & FLIP == 0 {}
    }
}

grid_kernel!(x__grid__gb_spin, |bar| GridBarrier::<Spin>::from_ptr(bar).sync());
grid_kernel!(x__grid__gb_relaxed_poll, |bar| grid_sync_relaxed_poll(bar));
grid_kernel!(x__grid__bar_spin, |bar| {
    block::sync();
    if block::thread_x() == 0 {
        Barrier::<Gpu, Spin>::from_ptr(bar).arrive_and_wait();
    }
    block::sync();
});
grid_kernel!(x__grid__flip, |bar| {
    block::sync();
    if block::thread_x() == 0 {
        flip_arrive_and_wait(bar, false);
    }
    block::sync();
});
grid_kernel!(x__grid__flip_relaxed_poll, |bar| {
    block::sync();
    if block::thread_x() == 0 {
        flip_arrive_and_wait(bar, true);
    }
    block::sync();
});
