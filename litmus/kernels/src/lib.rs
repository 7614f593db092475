//! The litmus suite's kernels, built only for nvptx64-nvidia-cuda by `cargo xtask`;
//! the PTX is `ptx_sync_litmus_kernels.ptx`. Every test access goes through ptx-sync's own
//! `Atomic<u32, S>` and `fence::<S>`, so the suite tests what users get.
//!
//! - `handoff`: the primitive-shaped tests and MP at `Sys` scope (their layout from
//!   `litmus/src/handoff_layout.rs`, the same file the host uses);
//! - `harness`: a thread's view of one launch (placement from `litmus/src/launch.rs`, the same
//!   file the host uses), memory stress, the bounded rendezvous;
//! - `shapes`: the litmus shapes, each a kernel per variant (`litmus_<shape>_<variant>`);
//! - `tally`: folds every instance's outcome into a histogram on the GPU and resets its words.
#![no_std]
#![feature(abi_ptx, asm_experimental_arch, stdarch_nvptx)]

// The host uses some of its items (sizes, checks) that the kernels do not.
#[allow(dead_code)]
#[path = "../../src/launch.rs"]
mod launch;

#[path = "../../src/handoff_layout.rs"]
mod handoff_layout;

mod handoff;
mod harness;
mod shapes;
mod tally;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // SAFETY: trap aborts the kernel; the host sees a launch failure.
    unsafe { core::arch::nvptx::trap() }
}
