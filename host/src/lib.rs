//! # ptx-sync-host
//!
//! The host side of ptx-sync: a thin, typed layer on [cudarc] that loads the PTX the device
//! crates build (from a file, [`Device::load_ptx`], or embedded text, [`Device::load_ptx_str`]),
//! launches kernels with typed arguments through one path ([`Device::launch_builder`] and the
//! [`launch!`] macro: plainly, cooperatively where spinning across blocks needs every block
//! resident, or in thread-block clusters), reads and writes a module's device statics
//! ([`Module::read_global`], [`Module::write_global`]), gives system-scope memory that the CPU
//! and GPU share ([`MappedBuffer`]; [`ManagedBuffer`] where both sides read-modify-write the
//! same words) with the device crate's primitives over it on the host side ([`sys`]: a
//! `Latch<Sys>`, `Semaphore<Sys>`, flag that a host thread and a kernel use together), opens
//! several GPUs of one host and shares memory among them ([`multi`]:
//! [`Device::open_all`], [`Device::enable_peer_access`], [`PortableBuffer`], [`PeerBuffer`], for
//! `Sys`-scope synchronization between kernels on different GPUs), and waits with a watchdog so a
//! deadlocked kernel becomes an error instead of a hang.
//!
//! cudarc is built with `dynamic-loading`: `libcuda.so` is opened at run time, so this crate
//! builds on machines with no CUDA at all, and [`driver_available`] tells whether one is there.
//!
//! ```no_run
//! use ptx_sync_host::{launch, Device};
//! use std::time::Duration;
//! # fn main() -> Result<(), ptx_sync_host::Error> {
//! let gpu = Device::open(0)?;
//! // Or: gpu.load_ptx_str("my_kernels.ptx (embedded)", include_str!(env!("MY_KERNELS_PTX")))
//! let kernels = gpu.load_ptx("target/ptx/sm_90/nvptx64-nvidia-cuda/release/my_kernels.ptx")?;
//! let out = gpu.zeros::<u32>(1000)?;
//! let n = 1000u32;
//! // smoke_iota(out: *mut u32, n: u32): 4 blocks of 256 threads, no dynamic shared memory.
//! unsafe { launch!(kernels.smoke_iota<<<4, 256, 0, gpu>>>(&out, n)) }?;
//! // A kernel that never finishes is Error::Timeout; the GPU is then stuck (Error::Stuck).
//! gpu.wait(Duration::from_secs(10))?;
//! assert_eq!(gpu.download(&out)?[999], 999);
//! // A device static of the kernel crate: #[unsafe(no_mangle)] static CALLS: Atomic<u32, Gpu>
//! let calls: u32 = kernels.read_global(&gpu, "CALLS")?;
//! # Ok(()) }
//! ```

#![warn(missing_debug_implementations)]

mod cluster;
mod cooperative;
mod device;
mod error;
mod launch;
mod loader;
mod managed;
mod mapped;
pub mod multi;
#[cfg(feature = "nvshmem")]
pub mod nvshmem;
mod ptx;
pub mod sys;
#[cfg(test)]
mod test_rng;
mod watchdog;

pub use cluster::{ClusterConfig, ClusterLimit};
pub use cooperative::CoopLimit;
pub use cudarc;
pub use device::{driver_available, Device, Kernel, Module};
pub use error::{Error, Result};
pub use launch::{launch_config, Dim3, Launch};
pub use managed::ManagedBuffer;
pub use mapped::{view_f32, view_f64, view_i32, view_i64, MappedBuffer, MappedWord};
pub use multi::{PeerBuffer, PeerInfo, PortableBuffer};
/// The device crate, whose primitives this crate also runs on the host (see [`sys`]).
pub use ptx_sync;
pub use watchdog::DEFAULT_WATCHDOG;
