//! The kernels of the ptx-sync examples, one module per example, numbered as the app's
//! `app/examples/NN-*.rs` that runs it. This crate only builds for `nvptx64-nvidia-cuda`
//! (`../app/build.rs` builds it with `ptx_sync_build`); the app embeds the PTX and runs each
//! kernel, checking its result exactly.
//!
//! Every kernel takes raw pointers to memory the host allocated (`gpu.zeros`, `gpu.upload`)
//! and views it through ptx-sync (`Atomic::from_ptr`, `Mutex::from_ptr`,
//! `GridBarrier::from_ptr`): primitives live in global memory, never in a kernel's locals.
//! Each kernel's doc comment says why it is correct: which ordering or primitive synchronizes
//! what.
#![no_std]
#![feature(abi_ptx, stdarch_nvptx)]

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    // Prints "panicked at file:line:col: message" on the GPU, then traps: the host sees the
    // launch fail and the message on its stdout.
    ptx_sync::report_panic(info)
}

// The kernels are `#[unsafe(no_mangle)]`: each is a PTX `.entry` under its own name, whatever
// module it is in.

/// 01: `sum_then_publish`, the README's first kernel.
mod sum_then_publish;

/// 02: `producer_consumer`, a ring buffer between producer blocks and consumer blocks.
mod producer_consumer;

/// 03: `count_keys`, a hash table with one `Mutex` per bucket.
mod hash_table;

/// 04: `grid_sum`, a cooperative reduction with a `GridBarrier`.
mod grid_reduction;
