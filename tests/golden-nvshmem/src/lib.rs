//! Golden kernels of `ptx_sync::nvshmem`: one per public function x type (see ../cases.rs and
//! build.rs). tests/tests/nvshmem_ptx.rs checks the NVSHMEM symbol each one calls and the
//! parameter count of its `.extern .func` declaration.
#![no_std]
#![feature(abi_ptx)]
// Safe functions (`fence()`) are called in the same `unsafe` body template as the others.
#![allow(clippy::missing_safety_doc, unused_unsafe)]

use ptx_sync::nvshmem::*;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

include!(concat!(env!("OUT_DIR"), "/generated.rs"));
