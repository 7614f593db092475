//! Kernels of the GPU suite's NVSHMEM cases (tests/src/cases/nvshmem.rs) and of the NVSHMEM
//! benchmarks (bench/src/nvshmem.rs). Built only for nvptx64-nvidia-cuda by `cargo xtask`,
//! linked with NVSHMEM's device bitcode; the PTX is `ptx_sync_nvshmem_test_kernels.ptx`.
//! Every kernel runs on every PE at once (one process per GPU), launched cooperatively.
#![no_std]
#![feature(abi_ptx)]

#[path = "../../src/cases/nvshmem_plan.rs"]
#[allow(dead_code)] // the expected-count helpers are the host's
mod plan;

mod multi_gpu_plan;

mod bench;
mod cases;
mod primitives;

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    ptx_sync::report_panic(info)
}
