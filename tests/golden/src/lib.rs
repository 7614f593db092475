//! Golden kernels: one per public operation x order x scope x type (see ../cases.rs and
//! build.rs). tests/tests/golden_ptx.rs checks the exact instruction each one emits.
#![no_std]
#![feature(abi_ptx)]
#![allow(unused_imports, unused_variables, clippy::missing_safety_doc)]

#[cfg(target_feature = "sm_80")]
use ptx_sync::BlockBarrier;
#[cfg(target_feature = "sm_90")]
use ptx_sync::Cluster;
use ptx_sync::{
    compiler_fence, fence, volatile, Atomic, AtomicBool, AtomicFlag, AtomicPtr, Barrier,
    BinarySemaphore, Cta, Gpu, GridBarrier, Latch, Mutex, Ordering, Semaphore, Sys, TicketLock,
};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

// The shared variable of the `.shared::cta` / `.shared::cluster` handle cases (build.rs
// `space_handle`).
ptx_sync::shared! { static WORD: [u64; 2]; }

include!(concat!(env!("OUT_DIR"), "/generated.rs"));
