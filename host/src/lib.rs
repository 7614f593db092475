//! # ptx-sync-host
//!
//! The host side of ptx-sync: a thin, typed layer on [cudarc] that loads the PTX the device
//! crates build, launches kernels (cooperatively where spinning across blocks needs every block
//! resident, or in thread-block clusters: [`Gpu::cluster_launch`]), gives system-scope memory
//! that the CPU and GPU share ([`MappedBuffer`]) with the device crate's primitives over it on
//! the host side ([`sys`]: a `Latch<Sys>`, `Semaphore<Sys>`, flag that a host thread and a
//! kernel use together), and waits with a watchdog so a deadlocked kernel becomes an error
//! instead of a hang.
//!
//! cudarc is built with `dynamic-loading`: `libcuda.so` is opened at run time, so this crate
//! builds on machines with no CUDA at all, and [`driver_available`] tells whether one is there.
//!
//! ```no_run
//! use ptx_sync_host::{Gpu, cudarc::driver::{LaunchConfig, PushKernelArg}};
//! # fn main() -> Result<(), ptx_sync_host::Error> {
//! let gpu = Gpu::open(0)?;
//! let kernels = gpu.load_ptx("target/ptx/sm_90/nvptx64-nvidia-cuda/release/my_kernels.ptx".as_ref())?;
//! let smoke = kernels.kernel("smoke_iota")?;
//! let out = gpu.zeros::<u32>(1000)?;
//! let n = 1000u32;
//! let mut launch = gpu.stream().launch_builder(smoke.function());
//! launch.arg(&out).arg(&n);
//! unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }.map_err(|e| gpu.driver_error("launch", e))?;
//! gpu.wait(std::time::Duration::from_secs(10))?;
//! assert_eq!(gpu.download(&out)?[999], 999);
//! # Ok(()) }
//! ```

mod cluster;
mod cooperative;
mod error;
mod gpu;
mod mapped;
pub mod sys;

pub use cluster::{ClusterConfig, ClusterLaunch, ClusterLimit};
pub use cooperative::CoopLimit;
pub use cudarc;
pub use error::{Error, Result};
pub use gpu::{driver_available, Gpu, Kernel, Module};
pub use mapped::{MappedBuffer, MappedWord};
/// The device crate, whose primitives this crate also runs on the host (see [`sys`]).
pub use ptx_sync;
