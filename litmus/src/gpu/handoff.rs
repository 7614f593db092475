//! Primitive-shaped litmus tests and MP at `Sys` scope between a host thread and the GPU
//! (work in progress).

use crate::report::Row;
use ptx_sync_host::{Gpu, Module};

/// Runs the primitive-shaped tests and the host/GPU MP; `scale` multiplies instance counts.
pub fn run(_gpu: &Gpu, _module: &Module, _scale: f64) -> Result<Vec<Row>, String> {
    Ok(Vec::new())
}
