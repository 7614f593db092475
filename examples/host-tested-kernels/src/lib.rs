//! Kernels you can test on the host: each kernel's body is an ordinary `pub unsafe fn` written
//! on `ptx_sync::index` (where a thread is), `block::sync`, warp shuffles, atomics and
//! `shared!`; `cargo test` in this crate runs the bodies on the host with
//! `ptx_sync::index::run_grid` (every thread of a launch a `std` thread, each warp an emulated
//! warp) and checks their results exactly, and the `extern "ptx-kernel"` entry points, which
//! only call the bodies, exist in the nvptx build alone. `../app/build.rs` builds this crate
//! to PTX with `ptx-sync-build`, and `../app/examples/05-host-tested-kernels.rs` runs the same
//! kernels on the GPU.
//!
//! The layout that makes both work (`ptx_sync::index`'s docs, "Kernels you can test on the
//! host"):
//! - `Cargo.toml`: `crate-type = ["cdylib", "rlib"]`; ptx-sync in `[dependencies]`, and again
//!   in `[dev-dependencies]` with the `warp-emulation` feature;
//! - here: `no_std` and the nvptx features only on nvptx (`cfg_attr`), the panic handler and
//!   the entry points behind `#[cfg(target_arch = "nvptx64")]`;
//! - each module's `#[cfg(test)] mod tests`: the body in `run_grid`, the result checked.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    // Prints "panicked at file:line:col: message" on the GPU, then traps: the host sees the
    // launch fail and the message on its stdout. On the host, std's handler reports it.
    ptx_sync::report_panic(info)
}

/// `byte_histogram`: a histogram of bytes, counted per block in shared memory, then added to
/// the global one.
pub mod histogram;

/// `block_sum`: each block's sum by warp shuffles and `block::sync`, and the total.
pub mod reduction;

/// `saxpy`: `y = a x + y` in a grid-stride loop.
pub mod saxpy;

/// The entry points the host launches (GPU only): each unpacks its arguments and calls the
/// body. `#[unsafe(no_mangle)]` makes each a PTX `.entry` under its own name.
#[cfg(target_arch = "nvptx64")]
mod entry {
    /// [`crate::histogram::byte_histogram`] over `input[..n]` into `bins[..256]`.
    ///
    /// # Safety
    /// As the body's.
    #[unsafe(no_mangle)]
    pub unsafe extern "ptx-kernel" fn byte_histogram(input: *const u8, n: u32, bins: *mut u32) {
        unsafe { crate::histogram::byte_histogram(input, n as usize, bins) }
    }

    /// [`crate::reduction::block_sum`] of `input[..n]` into `sums[block]` and `*total`.
    ///
    /// # Safety
    /// As the body's.
    #[unsafe(no_mangle)]
    pub unsafe extern "ptx-kernel" fn block_sum(
        input: *const u32,
        n: u32,
        sums: *mut u64,
        total: *mut u64,
    ) {
        unsafe { crate::reduction::block_sum(input, n as usize, sums, total) }
    }

    /// [`crate::saxpy::saxpy`]: `y[..n] = a * x[..n] + y[..n]`.
    ///
    /// # Safety
    /// As the body's.
    #[unsafe(no_mangle)]
    pub unsafe extern "ptx-kernel" fn saxpy(a: f32, x: *const f32, y: *mut f32, n: u32) {
        unsafe { crate::saxpy::saxpy(a, x, y, n as usize) }
    }
}
