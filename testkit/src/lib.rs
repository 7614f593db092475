//! Test support shared by the GPU suite (`tests/`), `bench-gpu` (`bench/`) and the litmus
//! checks (`litmus/tests`):
//! - [`Error`] and [`Result`]: what a harness step returns; `?` takes the host crate's and
//!   cudarc's errors, a `String` or `&str` (a failed check).
//! - [`Outcome`]: pass, fail or skip, each with its detail, what a case ends as.
//! - [`launch_config`] and [`one_thread`]: the launch shapes the harnesses write most.
//! - [`ptx`]: the PTX text parser the PTX checks share (kernel bodies, statements, opcodes).

mod error;
pub mod ptx;

pub use error::{skip, Error, Outcome, Result};
pub use ptx_sync_host::launch_config;

use ptx_sync_host::cudarc::driver::LaunchConfig;

/// One block of one thread, no dynamic shared memory.
pub fn one_thread() -> LaunchConfig {
    launch_config(1, 1, 0)
}
